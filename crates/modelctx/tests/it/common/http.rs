//! A server on a loopback port and a raw HTTP client for it, for the tests that speak
//! Streamable HTTP byte by byte.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use modelctx::server::{InputError, RequestContext, Server};
use modelctx::transport::http::{HttpOptions, serve_http};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::WAIT;

/// Asks the client for a name; answers with what the user did.
pub async fn ask(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.elicit(super::name_form()).await?;
    Ok(format!("{:?}", answer.action))
}

/// Releases its stream mid-call, then answers.
pub async fn released(ctx: RequestContext) -> String {
    ctx.progress(1.0, None, None).await;
    ctx.release_stream();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    "after the break".into()
}

/// A server served on 127.0.0.1 until the endpoint is dropped, and a client for it.
pub struct Endpoint {
    /// The MCP endpoint's URL.
    pub url: String,
    /// A plain HTTP/1.1 client.
    pub client: Client<HttpConnector, Full<Bytes>>,
    /// The server behind it.
    pub server: Server,
    _stop: oneshot::Sender<()>,
}

/// Serves `server` with `options` on a fresh loopback port.
pub async fn start_serving(server: Server, options: HttpOptions) -> Endpoint {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server.clone(), listener, options, async move {
        let _ = stopped.await;
    }));
    Endpoint { url, client: Client::builder(TokioExecutor::new()).build_http(), server, _stop: stop }
}

/// A whole answer: status, headers, body.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: http::HeaderMap,
    /// The body, as text.
    pub body: String,
}

impl Answer {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The JSON messages of an SSE body.
    pub fn events(&self) -> Vec<Value> {
        messages(&self.body)
    }
}

/// The JSON-RPC messages of SSE text.
pub fn messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| !data.is_empty())
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

impl Endpoint {
    /// Opens a session asking for `version`, as a client declaring `capabilities`; returns its
    /// id and the negotiated version.
    pub async fn initialize_at(
        &self,
        version: &str,
        capabilities: Value,
        auth: &[(&str, &str)],
    ) -> (String, String) {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}});
        let mut headers = vec![("content-type", "application/json")];
        headers.extend_from_slice(auth);
        let answer = self.send("POST", &headers, &init.to_string()).await;
        assert_eq!(answer.status, 200, "initialize: {}", answer.body);
        let session = answer.headers["mcp-session-id"].to_str().unwrap().to_owned();
        let negotiated = answer.json()["result"]["protocolVersion"].as_str().unwrap().to_owned();
        (session, negotiated)
    }

    /// Opens a 2025-11-25 session whose client declares `capabilities`; returns its id.
    pub async fn initialize(&self, capabilities: Value) -> String {
        self.initialize_at("2025-11-25", capabilities, &[]).await.0
    }

    /// Sends a request and returns the response with its body still streaming.
    pub async fn open(
        &self,
        method: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> http::Response<hyper::body::Incoming> {
        let mut request = Request::builder().method(method).uri(&self.url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(Bytes::from(body.to_owned()))).unwrap();
        tokio::time::timeout(WAIT, self.client.request(request)).await.unwrap().unwrap()
    }

    /// Sends a request and reads its whole answer.
    pub async fn send(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let response = self.open(method, headers, body).await;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body =
            tokio::time::timeout(WAIT, response.into_body().collect()).await.unwrap().unwrap().to_bytes();
        Answer { status, headers, body: String::from_utf8(body.to_vec()).unwrap() }
    }
}
