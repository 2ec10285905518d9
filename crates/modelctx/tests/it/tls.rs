//! The client over `https://`: a TLS server on 127.0.0.1 (rustls, its certificate signed by a
//! certificate authority of the test's own) offering HTTP/2 and HTTP/1.1 by ALPN. The client
//! trusts that authority only through `ClientOptions::root_certificates`, and speaks HTTP/2
//! without being told to (`http2_prior_knowledge` is off): ALPN chose it.

use std::sync::{Arc, Mutex};

use crate::common::{builder, within};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use modelctx::client::{Client, ClientOptions};
use modelctx::server::ToolDef;
use modelctx::transport::http::{HttpOptions, McpHttp};
use modelctx_protocol::types::Implementation;
use serde_json::json;

/// What the server saw of each connection and request.
#[derive(Default)]
struct Seen {
    /// The protocol ALPN settled on, per connection.
    alpn: Vec<Option<Vec<u8>>>,
    /// The HTTP version of each request.
    versions: Vec<hyper::Version>,
}

/// Serves MCP over TLS on 127.0.0.1 with a certificate for `localhost` signed by a fresh
/// authority; the endpoint's URL, the authority's certificate (PEM) and what the server saw.
async fn serve_tls() -> (String, String, Arc<Mutex<Seen>>) {
    let (acceptor, authority) = crate::common::tls::localhost_acceptor(&[b"h2", b"http/1.1"]);

    let server = builder().tool(ToolDef::new("hello", || async { "hello over TLS" })).build().unwrap();
    let mcp = McpHttp::new(server, HttpOptions::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://localhost:{}/mcp", listener.local_addr().unwrap().port());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let Ok(tls) = acceptor.accept(tcp).await else { continue };
            record.lock().unwrap().alpn.push(tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec));
            let (mcp, record) = (mcp.clone(), record.clone());
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                record.lock().unwrap().versions.push(request.version());
                let mcp = mcp.clone();
                async move { Ok::<_, std::convert::Infallible>(mcp.handle(request).await) }
            });
            tokio::spawn(async move {
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    (url, authority, seen)
}

fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("tls-client", "1"))
}

#[tokio::test]
async fn an_https_server_of_a_private_authority_is_reached_over_http2_chosen_by_alpn() {
    let (url, authority, seen) = serve_tls().await;
    // Without the authority the server's certificate is not trusted.
    let refused =
        within(Client::connect_http(&url, Default::default(), options())).await.err().expect("refused");
    let mut causes = refused.to_string();
    let mut source = std::error::Error::source(&refused);
    while let Some(cause) = source {
        causes = format!("{causes}: {cause}");
        source = cause.source();
    }
    assert!(causes.to_lowercase().contains("certificate"), "{causes}");

    let trusting = ClientOptions {
        root_certificates: reqwest::Certificate::from_pem_bundle(authority.as_bytes()).unwrap(),
        ..options()
    };
    assert!(!trusting.http2_prior_knowledge);
    let client = within(Client::connect_http(&url, Default::default(), trusting)).await.unwrap();
    let result = within(client.call_tool("hello", json!({}))).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "hello over TLS");
    let seen = seen.lock().unwrap();
    assert!(seen.alpn.iter().flatten().all(|alpn| alpn == b"h2"), "ALPN: {:?}", seen.alpn);
    assert!(seen.alpn.iter().any(Option::is_some), "a connection settled on h2: {:?}", seen.alpn);
    assert!(!seen.versions.is_empty(), "the requests reached the server");
    assert!(seen.versions.iter().all(|v| *v == hyper::Version::HTTP_2), "{:?}", seen.versions);
}
