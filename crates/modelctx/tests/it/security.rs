//! The security rows (CHECKLIST §18, SEC-04/05/06/08, CACHE-07/10) against real parts on
//! 127.0.0.1: the OAuth client's fetcher facing a hostile server, the resource server in front
//! of the real server, and the client's cache with two principals.
#![cfg(feature = "auth")]

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::{BodyExt, Full};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use modelctx::auth::{FetchLimits, Fetcher, Keys, OAuth, OAuthOptions, ResourceServer, Secret, StaticClient};
use modelctx::client::egress::Egress;
use modelctx::client::{
    Client, ClientError, ClientOptions, EraMode, HttpAuth, StaticBearer, authorization_value,
};
use modelctx::server::{
    CacheDefaults, InputError, RequestContext, ResourceDef, ResourceRequest, Server, ServerOptions, ToolDef,
    text_contents,
};
use modelctx::testing::with_modern_meta;
use modelctx::transport::http::{Authenticator, HttpOptions, serve_http};
use modelctx_protocol::types::Implementation;
use modelctx_protocol::v2026::CacheScope;
use p256::pkcs8::EncodePrivateKey;
use reqwest::Url;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

const ISSUER: &str = "https://as.example.com";

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A listener on 127.0.0.1 and its base URL.
async fn listen() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    (listener, base)
}

/// What a stub answers: status, headers, body.
type Reply = (u16, Vec<(&'static str, String)>, String);

/// Serves `reply(path, body)` on `listener`, for every request.
fn stub(listener: TcpListener, reply: impl Fn(&str, &[u8]) -> Reply + Send + Sync + 'static) {
    let reply = Arc::new(reply);
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let reply = reply.clone();
            let service =
                hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    let reply = reply.clone();
                    async move {
                        let path = request.uri().path().to_owned();
                        let body = request.into_body().collect().await.unwrap().to_bytes();
                        let (status, headers, text) = reply(&path, &body);
                        let mut response = hyper::Response::builder().status(status);
                        for (name, value) in headers {
                            response = response.header(name, value);
                        }
                        Ok::<_, Infallible>(response.body(Full::new(Bytes::from(text))).unwrap())
                    }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
}

/// A listener on 127.0.0.1 that counts the connections made to it and answers none: the
/// internal service a forged URL points at.
async fn trap() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let reached = Arc::new(AtomicUsize::new(0));
    let count = reached.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (port, reached)
}

/// An MCP endpoint stub that refuses everything with a challenge naming `resource_metadata`.
async fn challenging(resource_metadata: String) -> String {
    let (listener, base) = listen().await;
    stub(listener, move |_, _| {
        let challenge = format!(r#"Bearer resource_metadata="{resource_metadata}""#);
        (401, vec![("www-authenticate", challenge)], "{}".into())
    });
    format!("{base}/mcp")
}

/// Connects to `url` with an OAuth client (client credentials) fetching within `fetch`; the
/// connection must fail.
async fn oauth_connect(url: &str, fetch: FetchLimits) -> ClientError {
    let client = StaticClient {
        client_id: "c".into(),
        client_secret: Some(Secret::new("s")),
        ..StaticClient::default()
    };
    let options = OAuthOptions { fetch, ..OAuthOptions::client_credentials(client) };
    let client_options = ClientOptions {
        auth: Some(Arc::new(OAuth::new(url, options).unwrap())),
        ..ClientOptions::new(Implementation::new("t", "1"))
    };
    let connected =
        crate::common::within(Client::connect_http(url, Default::default(), client_options)).await;
    connected.err().expect("the connection is refused")
}

fn dev_fetch() -> FetchLimits {
    FetchLimits { egress: Egress::Any, ..FetchLimits::default() }
}

/// SEC-04 (block private/reserved ranges): with the default limits, a `resource_metadata`
/// URL a server names on loopback (literal, by name, IPv4-mapped) or on the cloud metadata
/// address is refused before any connection: the internal listener it points at is never
/// reached, and the OAuth flow fails.
#[tokio::test]
async fn sec_04_oauth_urls_on_private_or_reserved_addresses_are_never_fetched_by_default() {
    let (port, reached) = trap().await;
    let path = "/.well-known/oauth-protected-resource/mcp";
    let forged = [
        format!("https://127.0.0.1:{port}{path}"),
        format!("https://localhost:{port}{path}"),
        format!("https://[::ffff:127.0.0.1]:{port}{path}"),
        "https://169.254.169.254/latest/meta-data/".to_owned(),
    ];
    for url in forged {
        let error = oauth_connect(&challenging(url.clone()).await, FetchLimits::default()).await;
        assert!(error.is_auth(), "{url}: {error:?}");
        assert!(error.to_string().contains("only public addresses may be reached"), "{url}: {error}");
    }
    assert_eq!(reached.load(Ordering::SeqCst), 0, "no connection reached the internal listener");
}

/// SEC-04 (require HTTPS): plain `http` is refused for every OAuth URL but loopback ones,
/// even with the development opt-out that allows private networks: an authorization server
/// the resource metadata names at `http://10.…` is refused before anything is sent; without
/// the opt-out even loopback `http` is refused, and never connected to.
#[tokio::test]
async fn sec_04_plain_http_oauth_urls_are_refused() {
    let (listener, base) = listen().await;
    let (resource, root) = (format!("{base}/mcp"), base.clone());
    stub(listener, move |path, _| match path {
        "/mcp" => {
            let challenge =
                format!(r#"Bearer resource_metadata="{root}/.well-known/oauth-protected-resource/mcp""#);
            (401, vec![("www-authenticate", challenge)], "{}".into())
        }
        _ => {
            let metadata = json!({"resource": resource, "authorization_servers": ["http://10.0.0.1:8080"]});
            (200, vec![("content-type", "application/json".into())], metadata.to_string())
        }
    });
    let error = oauth_connect(&format!("{base}/mcp"), dev_fetch()).await.to_string();
    assert!(error.contains("http://10.0.0.1:8080/") && error.contains("must be https"), "{error}");

    let (port, reached) = trap().await;
    let fetcher = Fetcher::new(FetchLimits::default()).unwrap();
    let url = Url::parse(&format!("http://127.0.0.1:{port}/token")).unwrap();
    let refused = fetcher.request(reqwest::Method::GET, &url).await.unwrap_err().to_string();
    assert!(refused.contains("authorization URLs must be https"), "{refused}");
    assert_eq!(reached.load(Ordering::SeqCst), 0);
}

/// SEC-04 (validate redirects): a redirect an OAuth URL answers is read, never followed:
/// every metadata document, registration and token request of a hostile server answers
/// `302` to an internal listener, which nothing reaches, even with private networks allowed.
#[tokio::test]
async fn sec_04_redirects_from_oauth_urls_are_never_followed() {
    let (port, reached) = trap().await;
    let internal = format!("http://127.0.0.1:{port}/latest/meta-data/");
    let (listener, base) = listen().await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (seen, root, to) = (asked.clone(), base.clone(), internal.clone());
    stub(listener, move |path, _| {
        seen.lock().unwrap().push(path.to_owned());
        match path {
            "/mcp" => {
                let metadata = format!("{root}/.well-known/oauth-protected-resource/mcp");
                (
                    401,
                    vec![("www-authenticate", format!(r#"Bearer resource_metadata="{metadata}""#))],
                    "{}".into(),
                )
            }
            _ => (302, vec![("location", to.clone())], String::new()),
        }
    });
    let error = oauth_connect(&format!("{base}/mcp"), dev_fetch()).await;
    assert!(error.is_auth(), "{error:?}");
    let asked = asked.lock().unwrap().clone();
    assert!(asked.iter().any(|p| p == "/.well-known/oauth-protected-resource/mcp"), "{asked:?}");
    assert!(asked.iter().any(|p| p == "/token"), "the flow went as far as the token request: {asked:?}");
    assert_eq!(reached.load(Ordering::SeqCst), 0, "no redirect was followed");

    // The fetcher hands the redirect back as it came.
    let fetcher = Fetcher::new(dev_fetch()).unwrap();
    let answer = fetcher.request(reqwest::Method::GET, &Url::parse(&format!("{base}/moved")).unwrap()).await;
    let answer = answer.unwrap();
    assert_eq!(answer.status.as_u16(), 302);
    assert_eq!(answer.headers["location"], internal.as_str());
    assert_eq!(reached.load(Ordering::SeqCst), 0);
}

/// The authorization server's signing key.
struct Signer {
    key: EncodingKey,
    public: Jwk,
}

fn signer() -> Signer {
    let secret = p256::ecdsa::SigningKey::from_slice(&[7u8; 32]).unwrap();
    let key = EncodingKey::from_ec_der(secret.to_pkcs8_der().unwrap().as_bytes());
    let mut public = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
    public.common.key_id = Some("k1".into());
    Signer { key, public }
}

/// The real server on 127.0.0.1 behind a [`ResourceServer`] verifying [`Signer`]'s JWTs.
struct Protected {
    url: String,
    signer: Signer,
    http: reqwest::Client,
    _stop: oneshot::Sender<()>,
}

/// Serves `server` on `listener` behind `authenticator`.
fn serve(
    server: Server,
    listener: TcpListener,
    authenticator: Arc<dyn Authenticator>,
) -> oneshot::Sender<()> {
    let options = HttpOptions { authenticator: Some(authenticator), ..HttpOptions::default() };
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server, listener, options, async move {
        let _ = stopped.await;
    }));
    stop
}

async fn protected(server: Server) -> Protected {
    let signer = signer();
    let (listener, base) = listen().await;
    let url = format!("{base}/mcp");
    let keys = Keys::Set(JwkSet { keys: vec![signer.public.clone()] });
    let authenticator = ResourceServer::jwt(&url, ISSUER, keys).unwrap().scopes_supported(["files:read"]);
    let stop = serve(server, listener, Arc::new(authenticator));
    Protected { url, signer, http: reqwest::Client::new(), _stop: stop }
}

/// An HTTP answer, its body as JSON (the last event of an event stream).
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Protected {
    /// A token of this issuer for this endpoint, of `sub` alice with `files:read`, an hour
    /// left: `claims` replace those, a `null` removes one.
    fn token(&self, claims: Value) -> String {
        let mut body = json!({"iss": ISSUER, "aud": self.url, "sub": "alice", "exp": now() + 3600,
                              "iat": now(), "scope": "files:read"});
        for (name, value) in claims.as_object().unwrap() {
            match value {
                Value::Null => drop(body.as_object_mut().unwrap().remove(name)),
                value => body[name] = value.clone(),
            }
        }
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        jsonwebtoken::encode(&header, &body, &self.signer.key).unwrap()
    }

    fn bearer(&self, subject: &str) -> String {
        format!("Bearer {}", self.token(json!({"sub": subject})))
    }

    async fn send(
        &self,
        method: reqwest::Method,
        authorization: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Answer {
        let mut request =
            self.http.request(method, &self.url).header("accept", "application/json, text/event-stream");
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = crate::common::within(request.send()).await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = crate::common::within(response.text()).await.unwrap();
        let data = text.lines().rev().find_map(|line| line.strip_prefix("data:")).unwrap_or(&text);
        let body = serde_json::from_str(data.trim()).unwrap_or(Value::String(text));
        Answer { status, headers, body }
    }

    /// A 2026-07-28 `tools/call` of `tool` with `params` (the name added), as `authorization`.
    async fn call(&self, authorization: Option<&str>, tool: &str, params: Value) -> Answer {
        let mut params = with_modern_meta(params, json!({"elicitation": {}}));
        params["name"] = json!(tool);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let headers =
            [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
        self.send(reqwest::Method::POST, authorization, &headers, Some(call)).await
    }

    /// A client of the 2026-07-28 era sending `auth`'s credentials.
    async fn client(&self, auth: Arc<dyn HttpAuth>) -> Client {
        let options = ClientOptions {
            auth: Some(auth),
            mode: EraMode::Modern,
            ..ClientOptions::new(Implementation::new("test", "1"))
        };
        crate::common::within(Client::connect_http(&self.url, Default::default(), options)).await.unwrap()
    }
}

/// Asks for a secret, then for a confirmation, then says whose it stored: its second round's
/// `requestState` carries the first answer.
async fn vault(ctx: RequestContext) -> Result<String, InputError> {
    let secret = ctx.elicit(crate::common::name_form()).await?;
    ctx.elicit(crate::common::name_form()).await?;
    let secret =
        serde_json::to_value(&secret.content).unwrap_or_default()["name"].as_str().map(str::to_owned);
    let owner = ctx.principal().map(|p| p.subject.clone()).unwrap_or_default();
    Ok(format!("{owner} stored {}", secret.unwrap_or_default()))
}

/// The only key of a result's `inputRequests`.
fn asked(result: &Value) -> String {
    let requests =
        result["inputRequests"].as_object().unwrap_or_else(|| panic!("no inputRequests in {result}"));
    assert_eq!(requests.len(), 1, "{result}");
    requests.keys().next().unwrap().clone()
}

fn accepted(key: &str, name: &str) -> Value {
    json!({key: {"action": "accept", "content": {"name": name}}})
}

/// SEC-05: a sealed `requestState` is no credential and belongs to the principal it was
/// sealed for. Alice's second-round state (carrying her first answer) replayed by Bob with
/// his own valid token is refused `-32602` and leaks nothing; sent with no token it is a
/// `401`; Alice herself completes with it.
#[tokio::test]
async fn sec_05_a_request_state_from_another_principal_is_refused() {
    let endpoint = protected(
        Server::with_info(crate::common::info()).tool(ToolDef::new("vault", vault)).build().unwrap(),
    )
    .await;
    let (alice, bob) = (endpoint.bearer("alice"), endpoint.bearer("bob"));
    let first = endpoint.call(Some(&alice), "vault", json!({})).await.body["result"].clone();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let retry = json!({"requestState": first["requestState"], "inputResponses": accepted(&asked(&first), "alice-pin-1234")});
    let second = endpoint.call(Some(&alice), "vault", retry).await.body["result"].clone();
    assert_eq!(second["resultType"], "input_required", "{second}");
    let last =
        json!({"requestState": second["requestState"], "inputResponses": accepted(&asked(&second), "yes")});

    let replayed = endpoint.call(Some(&bob), "vault", last.clone()).await;
    assert_eq!(replayed.status, 400, "{:?}", replayed.body);
    assert_eq!(replayed.body["error"]["code"], -32602, "{}", replayed.body);
    assert!(replayed.body["error"]["message"].as_str().unwrap().contains("belongs to another request"));
    assert!(!replayed.body.to_string().contains("alice-pin"), "{}", replayed.body);

    let anonymous = endpoint.call(None, "vault", last.clone()).await;
    assert_eq!(anonymous.status, 401, "the state does not authenticate: {:?}", anonymous.body);

    let done = endpoint.call(Some(&alice), "vault", last).await.body["result"].clone();
    assert_eq!(done["content"][0]["text"], "alice stored alice-pin-1234", "{done}");
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

fn session_of(answer: &Answer) -> String {
    let id =
        answer.headers.get("mcp-session-id").unwrap_or_else(|| panic!("no session id: {:?}", answer.body));
    id.to_str().unwrap().to_owned()
}

/// SEC-06 (never authenticate by session; bind it to the user): a 2025-11-25 session Alice
/// opened is no session of Bob's even with his valid token: his `POST`, `GET` (her stream)
/// and `DELETE` with her session id all get `404`, as for an unknown session, and her
/// session lives on; with no token at all the session id gets `401`.
#[tokio::test]
async fn sec_06_a_session_is_refused_to_every_principal_but_its_opener() {
    let endpoint = protected(
        Server::with_info(crate::common::info())
            .tool(ToolDef::new("noop", || async { "ok" }))
            .build()
            .unwrap(),
    )
    .await;
    let (alice, bob) = (endpoint.bearer("alice"), endpoint.bearer("bob"));
    let opened = endpoint.send(reqwest::Method::POST, Some(&alice), &[], Some(initialize())).await;
    assert_eq!(opened.status, 200, "{:?}", opened.body);
    let session = session_of(&opened);
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});

    let posted = endpoint.send(reqwest::Method::POST, Some(&bob), &headers, Some(ping.clone())).await;
    assert_eq!(posted.status, 404, "{:?}", posted.body);
    let streamed = endpoint.send(reqwest::Method::GET, Some(&bob), &headers, None).await;
    assert_eq!(streamed.status, 404, "{:?}", streamed.body);
    let deleted = endpoint.send(reqwest::Method::DELETE, Some(&bob), &headers, None).await;
    assert_eq!(deleted.status, 404, "{:?}", deleted.body);
    let anonymous = endpoint.send(reqwest::Method::POST, None, &headers, Some(ping.clone())).await;
    assert_eq!(anonymous.status, 401, "{:?}", anonymous.body);

    let own = endpoint.send(reqwest::Method::POST, Some(&alice), &headers, Some(ping)).await;
    assert_eq!(own.status, 200, "Bob's DELETE did not end Alice's session: {:?}", own.body);
    assert!(own.body.get("result").is_some(), "{:?}", own.body);
}

/// SEC-06 (secure, non-deterministic session ids): ids are at least 32 base64url characters
/// (192 random bits), never repeat within a server or across two fresh ones (a counter or a
/// seeded generator would repeat), and share no prefix (a clock-based id would).
#[tokio::test]
async fn sec_06_session_ids_are_long_random_and_never_repeat() {
    let mut ids = Vec::new();
    for sessions in [20, 1] {
        let endpoint = protected(Server::with_info(crate::common::info()).build().unwrap()).await;
        let alice = endpoint.bearer("alice");
        for _ in 0..sessions {
            let opened = endpoint.send(reqwest::Method::POST, Some(&alice), &[], Some(initialize())).await;
            ids.push(session_of(&opened));
        }
    }
    for id in &ids {
        assert!(id.len() >= 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{id}");
    }
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            let shared = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            assert!(shared < 8, "{a} and {b} share a {shared}-character prefix");
        }
    }
}

/// SEC-08: the resource server accepts only tokens issued for it. A token for another
/// service (an upstream API's, passed through), for several others, or naming no audience
/// is refused `401 invalid_token` and never reaches the handler; one naming this endpoint
/// among others, or alone, is accepted.
#[tokio::test]
async fn sec_08_tokens_not_issued_for_this_server_are_refused() {
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    let server = Server::with_info(crate::common::info())
        .tool(ToolDef::new("count", move || {
            let count = count.clone();
            async move { count.fetch_add(1, Ordering::SeqCst).to_string() }
        }))
        .build()
        .unwrap();
    let endpoint = protected(server).await;
    let refused = [
        json!({"aud": "https://api.upstream.example.com"}),
        json!({"aud": [ISSUER, "https://other.example.com/mcp"]}),
        json!({"aud": format!("{}/other", endpoint.url)}),
        json!({"aud": null}),
    ];
    for claims in refused {
        let answer = endpoint
            .call(Some(&format!("Bearer {}", endpoint.token(claims.clone()))), "count", json!({}))
            .await;
        assert_eq!(answer.status, 401, "{claims}: {:?}", answer.body);
        let challenge = answer.headers["www-authenticate"].to_str().unwrap();
        assert!(challenge.contains(r#"error="invalid_token""#), "{claims}: {challenge}");
    }
    assert_eq!(served.load(Ordering::SeqCst), 0, "no refused token reached the handler");
    for aud in [json!(endpoint.url), json!(["https://other.example.com/mcp", endpoint.url])] {
        let token = endpoint.token(json!({"aud": aud}));
        let answer = endpoint.call(Some(&format!("Bearer {token}")), "count", json!({})).await;
        assert_eq!(answer.status, 200, "{aud}: {:?}", answer.body);
    }
    assert_eq!(served.load(Ordering::SeqCst), 2);
}

/// SEC-08, by introspection: an active token the authorization server says was issued for
/// another resource, or for none, is refused like an inactive one; one for this endpoint is
/// accepted.
#[tokio::test]
async fn sec_08_introspected_tokens_for_another_audience_are_refused() {
    let (listener, base) = listen().await;
    let url = format!("{base}/mcp");
    let (introspection, introspection_base) = listen().await;
    let audience = url.clone();
    stub(introspection, move |_, body| {
        let token: String = url::form_urlencoded::parse(body)
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let mut answer = json!({"active": true, "iss": ISSUER, "sub": "carol", "exp": now() + 60});
        match token.as_str() {
            "ours" => answer["aud"] = json!(audience),
            "upstream" => answer["aud"] = json!("https://api.upstream.example.com"),
            "no-audience" => {}
            _ => answer = json!({"active": false}),
        }
        (200, vec![("content-type", "application/json".into())], answer.to_string())
    });
    let verifier = ResourceServer::introspection(
        &url,
        ISSUER,
        format!("{introspection_base}/introspect"),
        "rs",
        Secret::new("rs-secret"),
    )
    .unwrap();
    let server = Server::with_info(crate::common::info())
        .tool(ToolDef::new("noop", || async { "ok" }))
        .build()
        .unwrap();
    let _stop = serve(server, listener, Arc::new(verifier));
    let endpoint = Protected { url, signer: signer(), http: reqwest::Client::new(), _stop };
    for token in ["upstream", "no-audience", "unknown"] {
        let answer = endpoint.call(Some(&format!("Bearer {token}")), "noop", json!({})).await;
        assert_eq!(answer.status, 401, "{token}: {:?}", answer.body);
    }
    assert_eq!(endpoint.call(Some("Bearer ours"), "noop", json!({})).await.status, 200);
}

/// A server whose `me://profile` says who reads it, `private` and fresh for a minute, and
/// counts its reads.
fn profile_server(reads: Arc<AtomicUsize>) -> Server {
    let profile = ResourceDef::new("me://profile", "profile", move |request: ResourceRequest| {
        let reads = reads.clone();
        async move {
            reads.fetch_add(1, Ordering::SeqCst);
            request.ctx.set_cache(Duration::from_secs(60), CacheScope::Private);
            let who = request.ctx.principal().map(|p| p.subject.clone()).unwrap_or_default();
            Ok(vec![text_contents("me://profile", None, format!("profile of {who}"))])
        }
    });
    Server::with_info(crate::common::info()).resource(profile).build().unwrap()
}

async fn profile(client: &Client) -> String {
    let contents = crate::common::within(client.read_resource("me://profile")).await.unwrap();
    serde_json::to_value(&contents).unwrap()[0]["text"].as_str().unwrap().to_owned()
}

/// CACHE-07, two clients: each client caches a `private` read (its second read is served
/// from its cache), yet a client of another principal never gets it: it reads its own.
#[tokio::test]
async fn cache_07_private_results_are_not_shared_between_clients_of_different_principals() {
    let reads = Arc::new(AtomicUsize::new(0));
    let endpoint = protected(profile_server(reads.clone())).await;
    let alice = endpoint.client(Arc::new(StaticBearer::new(endpoint.token(json!({"sub": "alice"}))))).await;
    let bob = endpoint.client(Arc::new(StaticBearer::new(endpoint.token(json!({"sub": "bob"}))))).await;
    assert_eq!(profile(&alice).await, "profile of alice");
    assert_eq!(profile(&alice).await, "profile of alice");
    assert_eq!(reads.load(Ordering::SeqCst), 1, "the second read came from Alice's cache");
    assert_eq!(profile(&bob).await, "profile of bob");
    assert_eq!(profile(&bob).await, "profile of bob");
    assert_eq!(reads.load(Ordering::SeqCst), 2);
}

/// Bearer credentials that can be swapped while the client runs (a user signing out and
/// another signing in).
#[derive(Debug)]
struct Switchable(Mutex<String>);

impl HttpAuth for Switchable {
    fn authorize<'a>(&'a self, request: &'a mut reqwest::Request) -> BoxFuture<'a, Result<(), ClientError>> {
        let value = authorization_value("Bearer", &self.0.lock().unwrap());
        Box::pin(async move {
            request.headers_mut().insert(reqwest::header::AUTHORIZATION, value?);
            Ok(())
        })
    }
}

/// CACHE-07, one client whose credentials change: a `private` read cached for Alice does
/// not answer the same client once it sends Bob's token (each entry belongs to the digest of
/// the credentials it was fetched with).
#[tokio::test]
async fn cache_07_a_private_result_is_not_served_across_a_change_of_credentials() {
    let reads = Arc::new(AtomicUsize::new(0));
    let endpoint = protected(profile_server(reads.clone())).await;
    let auth = Arc::new(Switchable(Mutex::new(endpoint.token(json!({"sub": "alice"})))));
    let client = endpoint.client(auth.clone()).await;
    assert_eq!(profile(&client).await, "profile of alice");
    *auth.0.lock().unwrap() = endpoint.token(json!({"sub": "bob"}));
    assert_eq!(profile(&client).await, "profile of bob");
}

/// CACHE-10: access to each primitive is checked on every request, whatever the listing's
/// `cacheScope`. The listing is `public` and fresh for a minute (shareable with anyone) and
/// names the `write` tool and the `plans://q3` resource, yet a caller without their scopes is
/// refused `403 insufficient_scope` and their handlers never run; a caller with them is
/// served.
#[tokio::test]
async fn cache_10_a_scoped_primitive_is_refused_without_its_scope_though_its_listing_is_public() {
    let ran = Arc::new(AtomicUsize::new(0));
    let (tool_runs, read_runs) = (ran.clone(), ran.clone());
    let options = ServerOptions {
        cache: CacheDefaults { ttl_ms: 60_000, scope: CacheScope::Public },
        ..ServerOptions::default()
    };
    let server = Server::with_info(crate::common::info())
        .options(options)
        .tool(ToolDef::new("write", move || {
            let runs = tool_runs.clone();
            async move { runs.fetch_add(1, Ordering::SeqCst).to_string() }
        }))
        .tool_scopes(|_| vec!["files:write".to_owned()])
        .resource(
            ResourceDef::new("plans://q3", "plans", move |_: ResourceRequest| {
                let runs = read_runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok(vec![text_contents("plans://q3", None, "secret plans")])
                }
            })
            .scopes(["files:write"]),
        )
        .build()
        .unwrap();
    let endpoint = protected(server).await;
    let reader = endpoint.client(Arc::new(StaticBearer::new(endpoint.token(json!({}))))).await;
    let listing = crate::common::within(reader.request("tools/list", json!({}))).await.unwrap();
    assert_eq!((listing["cacheScope"].as_str(), listing["ttlMs"].as_u64()), (Some("public"), Some(60_000)));
    assert_eq!(listing["tools"][0]["name"], "write");
    let resources = crate::common::within(reader.request("resources/list", json!({}))).await.unwrap();
    assert_eq!(
        (resources["cacheScope"].as_str(), resources["resources"][0]["uri"].as_str()),
        (Some("public"), Some("plans://q3"))
    );

    let call = crate::common::within(reader.call_tool("write", json!({}))).await.unwrap_err();
    assert_eq!(call.http_status(), Some(403), "{call:?}");
    let read = crate::common::within(reader.read_resource("plans://q3")).await.unwrap_err();
    assert_eq!(read.http_status(), Some(403), "{read:?}");
    let raw = endpoint.call(Some(&format!("Bearer {}", endpoint.token(json!({})))), "write", json!({})).await;
    assert_eq!(raw.status, 403);
    assert!(raw.headers["www-authenticate"].to_str().unwrap().contains(r#"error="insufficient_scope""#));
    assert_eq!(ran.load(Ordering::SeqCst), 0, "no handler ran for the caller without the scope");

    let writer =
        endpoint.client(Arc::new(StaticBearer::new(endpoint.token(json!({"scope": "files:write"}))))).await;
    crate::common::within(writer.call_tool("write", json!({}))).await.unwrap();
    crate::common::within(writer.read_resource("plans://q3")).await.unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 2);
}

/// Bearer credentials sent with a proof that differs on every request, as DPoP's does.
#[derive(Debug)]
struct Proving(String, AtomicUsize);

impl HttpAuth for Proving {
    fn authorize<'a>(&'a self, request: &'a mut reqwest::Request) -> BoxFuture<'a, Result<(), ClientError>> {
        let value = authorization_value("Bearer", &self.0);
        let proof = self.1.fetch_add(1, Ordering::SeqCst).to_string();
        Box::pin(async move {
            request.headers_mut().insert(reqwest::header::AUTHORIZATION, value?);
            request.headers_mut().insert("DPoP", proof.parse().unwrap());
            Ok(())
        })
    }
}

/// CACHE-07: the authorization context is the credentials, not the per-request proof that
/// travels with them: a client whose every request carries a new proof still reads its own
/// `private` result from its cache.
#[tokio::test]
async fn cache_07_a_proof_that_changes_each_request_is_still_one_context() {
    let reads = Arc::new(AtomicUsize::new(0));
    let endpoint = protected(profile_server(reads.clone())).await;
    let auth = Arc::new(Proving(endpoint.token(json!({"sub": "alice"})), AtomicUsize::new(0)));
    let client = endpoint.client(auth).await;
    assert_eq!(profile(&client).await, "profile of alice");
    assert_eq!(profile(&client).await, "profile of alice");
    assert_eq!(reads.load(Ordering::SeqCst), 1, "the second read came from the cache");
}
