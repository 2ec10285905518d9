//! The resource server (CHECKLIST §AUTH, server rows) on 127.0.0.1: every refusal a hostile or
//! mistaken client can meet, and the tokens it accepts, spoken with a real HTTP client.
#![cfg(feature = "auth")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, JwkSet, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use modelctx::auth::{DpopKey, Keys, ResourceServer};
use modelctx::client::{Client, ClientOptions, EraMode, StaticBearer};
use modelctx::server::{RequestContext, Server, ToolDef};
use modelctx::testing::with_modern_meta;
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::types::Implementation;
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::common::within;

const ISSUER: &str = "https://as.example.com";

/// The authorization server's signing key, its public JWK (`kid` "k1") and a second key
/// that is in no key set.
struct Signer {
    key: EncodingKey,
    public: Jwk,
    stranger: EncodingKey,
}

fn ec_key(seed: u8) -> EncodingKey {
    let key = p256::ecdsa::SigningKey::from_slice(&[seed; 32]).unwrap();
    EncodingKey::from_ec_der(key.to_pkcs8_der().unwrap().as_bytes())
}

fn signer() -> Signer {
    let key = ec_key(7);
    let mut public = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
    public.common.key_id = Some("k1".into());
    Signer { key, public, stranger: ec_key(9) }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

impl Signer {
    /// A token with `claims` over the defaults (this issuer, for `audience`, an hour left);
    /// a `null` claim removes the default.
    fn token(&self, audience: &str, claims: Value) -> String {
        self.sign(&self.key, audience, claims)
    }

    fn sign(&self, key: &EncodingKey, audience: &str, claims: Value) -> String {
        self.sign_as(key, "k1", audience, claims)
    }

    /// A token signed with `key` under key id `kid`.
    fn sign_as(&self, key: &EncodingKey, kid: &str, audience: &str, claims: Value) -> String {
        let mut body = json!({"iss": ISSUER, "aud": audience, "sub": "alice", "exp": now() + 3600,
                              "iat": now(), "scope": "files:read", "client_id": "the-client"});
        for (name, value) in claims.as_object().unwrap() {
            match value {
                Value::Null => drop(body.as_object_mut().unwrap().remove(name)),
                value => body[name] = value.clone(),
            }
        }
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        jsonwebtoken::encode(&header, &body, key).unwrap()
    }
}

/// A server whose `peek` needs `files:read` and `write` needs `files:write`; `whoami` says
/// who the principal is.
fn server() -> Server {
    Server::builder("protected", "1.0")
        .tool(ToolDef::new("peek", || async { "peeked" }).scopes(["files:read"]))
        .tool(ToolDef::new("write", || async { "written" }).scopes(["files:write"]))
        .tool(ToolDef::new("whoami", |ctx: RequestContext| async move {
            let principal = ctx.principal().expect("a verified caller");
            format!("{} via {}", principal.subject, principal.client_id.as_deref().unwrap_or("?"))
        }))
        .build()
        .unwrap()
}

struct Endpoint {
    url: String,
    signer: Signer,
    http: reqwest::Client,
    _stop: oneshot::Sender<()>,
    /// The JWKS file's directory, when the verifier reads one.
    _keys: Option<tempfile::TempDir>,
}

/// The server behind a [`ResourceServer`] whose key set is a JWKS file.
async fn start() -> Endpoint {
    start_with(|authenticator| authenticator).await
}

/// [`start`], with the authenticator as `configure` leaves it.
async fn start_with(configure: impl FnOnce(ResourceServer) -> ResourceServer) -> Endpoint {
    let signer = signer();
    let keys = tempfile::tempdir().unwrap();
    let jwks = keys.path().join("jwks.json");
    std::fs::write(&jwks, serde_json::to_vec(&JwkSet { keys: vec![signer.public.clone()] }).unwrap())
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let authenticator = ResourceServer::jwt(&url, ISSUER, Keys::File(jwks))
        .unwrap()
        .scopes_supported(["files:read"])
        .scope_includes("files", ["files:read", "files:write"]);
    let options =
        HttpOptions { authenticator: Some(Arc::new(configure(authenticator))), ..HttpOptions::default() };
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server(), listener, options, async move {
        let _ = stopped.await;
    }));
    Endpoint { url, signer, http: reqwest::Client::new(), _stop: stop, _keys: Some(keys) }
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Endpoint {
    async fn post(
        &self,
        url: &str,
        authorization: Option<&str>,
        extra: &[(&str, &str)],
        body: Value,
    ) -> Answer {
        let mut request = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer { status, headers, body }
    }

    /// A 2026-07-28 `tools/call` of `tool` with `authorization` and `extra` headers.
    async fn call_with(&self, tool: &str, authorization: &str, extra: &[(&str, &str)]) -> Answer {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": with_modern_meta(json!({"name": tool, "arguments": {}}), json!({}))});
        let mut headers =
            vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
        headers.extend_from_slice(extra);
        self.post(&self.url, Some(authorization), &headers, call).await
    }

    /// A `tools/call` of `tool` with a bearer `token`.
    async fn call(&self, tool: &str, token: &str) -> Answer {
        self.call_with(tool, &format!("Bearer {token}"), &[]).await
    }

    /// A client that sends `token`.
    async fn client(&self, token: &str, mode: EraMode) -> Client {
        let options = ClientOptions {
            auth: Some(Arc::new(StaticBearer::new(token))),
            mode,
            ..ClientOptions::new(Implementation::new("test", "1"))
        };
        Client::connect_http(&self.url, Default::default(), options).await.unwrap()
    }
}

fn challenge(answer: &Answer) -> String {
    answer.headers.get("www-authenticate").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
}

fn text(result: &modelctx_protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn auth_04_05_09_15_no_token_is_a_401_naming_the_metadata_which_is_served() {
    let endpoint = start().await;
    let refused = endpoint.post(&endpoint.url, None, &[], json!({})).await;
    assert_eq!(refused.status, 401);
    let challenge = challenge(&refused);
    let parsed = modelctx::auth::challenge::parse([challenge.as_str()]);
    let metadata_url = parsed[0].resource_metadata().expect("resource_metadata in the challenge").to_owned();
    assert_eq!(parsed[0].scopes(), ["files:read"], "{challenge}");
    assert!(metadata_url.ends_with("/.well-known/oauth-protected-resource/mcp"), "{metadata_url}");
    let metadata: Value =
        serde_json::from_str(&reqwest::get(&metadata_url).await.unwrap().text().await.unwrap()).unwrap();
    assert_eq!(metadata["resource"], endpoint.url.as_str());
    assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
    assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
}

#[tokio::test]
async fn auth_39_42_a_valid_token_for_this_resource_reaches_the_handler_with_its_principal() {
    let endpoint = start().await;
    let token = endpoint.signer.token(&endpoint.url, json!({}));
    let client = endpoint.client(&token, EraMode::Auto).await;
    let result = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(text(&result), "alice via the-client");
}

#[tokio::test]
async fn auth_39_42_a_token_for_another_audience_is_refused() {
    let endpoint = start().await;
    let passed_through = endpoint.signer.token("https://other.example.com/mcp", json!({}));
    let refused = endpoint.call("peek", &passed_through).await;
    assert_eq!(refused.status, 401);
    assert!(challenge(&refused).contains(r#"error="invalid_token""#), "{}", challenge(&refused));
    assert_eq!(
        refused.body["error_description"],
        "the token was refused: it was not issued for this resource"
    );
}

#[tokio::test]
async fn auth_39_alg_none_and_hmac_with_the_public_key_are_refused() {
    let endpoint = start().await;
    let claims = json!({"iss": ISSUER, "aud": endpoint.url, "sub": "mallory", "exp": now() + 3600, "scope": "files:write"});
    let encode = |part: &Value| URL_SAFE_NO_PAD.encode(part.to_string());
    let unsigned = format!("{}.{}.", encode(&json!({"alg": "none", "typ": "JWT"})), encode(&claims));
    assert_eq!(endpoint.call("peek", &unsigned).await.status, 401);
    // The public key's coordinates as an HMAC secret: the classic key-confusion forgery.
    let public = serde_json::to_vec(&endpoint.signer.public).unwrap();
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("k1".into());
    let forged = jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(&public).unwrap()).unwrap();
    let refused = endpoint.call("peek", &forged).await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.body["error_description"], "tokens signed with HS256 are not accepted");
    // Signed by a key the authorization server does not publish.
    let stranger = endpoint.signer.sign(&endpoint.signer.stranger, &endpoint.url, json!({}));
    assert_eq!(
        endpoint.call("peek", &stranger).await.body["error_description"],
        "the token was refused: its signature does not verify"
    );
}

#[tokio::test]
async fn auth_40_an_expired_token_is_a_401_and_the_leeway_is_bounded() {
    let endpoint = start().await;
    let expired = endpoint.signer.token(&endpoint.url, json!({"exp": now() - 120}));
    let refused = endpoint.call("peek", &expired).await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.body["error_description"], "the token was refused: it has expired");
    let within_leeway = endpoint.signer.token(&endpoint.url, json!({"exp": now() - 5}));
    assert_eq!(endpoint.call("peek", &within_leeway).await.status, 200);
    let other_issuer = endpoint.signer.token(&endpoint.url, json!({"iss": "https://evil.example.com"}));
    assert_eq!(endpoint.call("peek", &other_issuer).await.status, 401);
}

#[tokio::test]
async fn auth_38_a_token_in_the_query_string_is_refused() {
    let endpoint = start().await;
    let token = endpoint.signer.token(&endpoint.url, json!({}));
    let url = format!("{}?access_token={token}", endpoint.url);
    let refused = endpoint.post(&url, None, &[], json!({})).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.body["error"], "invalid_request");
    // Even alongside a good header.
    let refused = endpoint.post(&url, Some(&format!("Bearer {token}")), &[], json!({})).await;
    assert_eq!(refused.status, 400);
}

#[tokio::test]
async fn auth_43_44_a_missing_scope_is_a_403_naming_the_scope_needed() {
    let endpoint = start().await;
    let reader = endpoint.signer.token(&endpoint.url, json!({"scope": "files:read"}));
    let refused = endpoint.call("write", &reader).await;
    assert_eq!(refused.status, 403);
    let parsed = modelctx::auth::challenge::parse([challenge(&refused).as_str()]);
    assert_eq!(parsed[0].error(), Some("insufficient_scope"));
    assert_eq!(parsed[0].scopes(), ["files:write"]);
    assert!(parsed[0].resource_metadata().is_some());
    assert_eq!(endpoint.call("peek", &reader).await.status, 200);
    let writer =
        endpoint.signer.token(&endpoint.url, json!({"scope": null, "scp": ["files:read", "files:write"]}));
    assert_eq!(endpoint.call("write", &writer).await.status, 200);
}

#[tokio::test]
async fn auth_46_a_broader_scope_covers_the_narrower_ones_it_includes() {
    let endpoint = start().await;
    let owner = endpoint.signer.token(&endpoint.url, json!({"scope": "files"}));
    assert_eq!(endpoint.call("write", &owner).await.status, 200);
    assert_eq!(endpoint.call("peek", &owner).await.status, 200);
    let unrelated = endpoint.signer.token(&endpoint.url, json!({"scope": "filesystem"}));
    assert_eq!(endpoint.call("write", &unrelated).await.status, 403);
}

#[tokio::test]
async fn auth_59_a_session_is_bound_to_the_principal_that_opened_it() {
    let endpoint = start().await;
    let alice = format!("Bearer {}", endpoint.signer.token(&endpoint.url, json!({})));
    let bob = format!("Bearer {}", endpoint.signer.token(&endpoint.url, json!({"sub": "bob"})));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let opened = endpoint.post(&endpoint.url, Some(&alice), &[], initialize).await;
    assert_eq!(opened.status, 200, "{:?}", opened.body);
    let session = opened.headers.get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    assert_eq!(endpoint.post(&endpoint.url, Some(&bob), &headers, ping.clone()).await.status, 404);
    assert_eq!(endpoint.post(&endpoint.url, Some(&alice), &headers, ping).await.status, 200);
    // And a client of the legacy era works end to end with its own token.
    let client = endpoint.client(alice.trim_start_matches("Bearer "), EraMode::Legacy).await;
    assert_eq!(text(&client.call_tool("peek", json!({})).await.unwrap()), "peeked");
}

#[tokio::test]
async fn a_dpop_bound_token_needs_a_fresh_proof_of_its_key() {
    let endpoint = start().await;
    let key = DpopKey::generate().unwrap();
    let token = endpoint.signer.token(&endpoint.url, json!({"cnf": {"jkt": key.thumbprint()}}));
    let url = reqwest::Url::parse(&endpoint.url).unwrap();
    let scheme = format!("DPoP {token}");
    let proof = key.proof("POST", &url, Some(&token), None).unwrap();
    let accepted = endpoint.call_with("peek", &scheme, &[("dpop", proof.as_str())]).await;
    assert_eq!(accepted.status, 200, "{:?}", accepted.body);
    let replayed = endpoint.call_with("peek", &scheme, &[("dpop", proof.as_str())]).await;
    assert_eq!(replayed.body["error_description"], "the DPoP proof was used before");
    // The bound token as a bearer token, or with a proof by another key: refused.
    assert_eq!(endpoint.call("peek", &token).await.status, 401);
    let other = DpopKey::generate().unwrap().proof("POST", &url, Some(&token), None).unwrap();
    let stolen = endpoint.call_with("peek", &scheme, &[("dpop", other.as_str())]).await;
    assert_eq!(
        stolen.body["error_description"],
        "the DPoP proof is signed by a key the token is not bound to"
    );
    let wrong_method = key.proof("GET", &url, Some(&token), None).unwrap();
    let refused = endpoint.call_with("peek", &scheme, &[("dpop", wrong_method.as_str())]).await;
    assert_eq!(refused.body["error_description"], "the DPoP proof is for another method");
    assert_eq!(key.thumbprint(), {
        let proof_header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(proof.split('.').next().unwrap()).unwrap())
                .unwrap();
        serde_json::from_value::<Jwk>(proof_header["jwk"].clone())
            .unwrap()
            .thumbprint(ThumbprintHash::SHA256)
            .unwrap()
    });
}

/// A token that names no subject and no client is refused: its callers could not be told apart
/// (they shared one principal, and each other's sessions and tasks); one naming only its client
/// is that client.
#[tokio::test]
async fn a_token_naming_no_subject_or_client_is_refused() {
    let endpoint = start().await;
    let nameless = endpoint.signer.token(&endpoint.url, json!({"sub": null, "client_id": null}));
    let refused = endpoint.call("peek", &nameless).await;
    assert_eq!(refused.status, 401);
    assert!(
        refused.body["error_description"].as_str().unwrap().contains("names no subject"),
        "{:?}",
        refused.body
    );
    let client_only = endpoint.signer.token(&endpoint.url, json!({"sub": null}));
    assert_eq!(endpoint.call("peek", &client_only).await.status, 200);
}

/// A DPoP proof whose `iat` is the end of time is refused as from the future (the check's
/// `iat + window` overflowed: a panic in a debug build, a wrapped sum in a release one).
#[tokio::test]
async fn a_dpop_proof_from_the_end_of_time_is_refused() {
    use sha2::Digest as _;
    let endpoint = start().await;
    let key = ec_key(11);
    let jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
    let token = endpoint
        .signer
        .token(&endpoint.url, json!({"cnf": {"jkt": jwk.thumbprint(ThumbprintHash::SHA256).unwrap()}}));
    let mut header = Header::new(Algorithm::ES256);
    header.typ = Some("dpop+jwt".into());
    header.jwk = Some(jwk);
    let ath = URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(token.as_bytes()));
    let claims =
        json!({"jti": "end-of-time", "htm": "POST", "htu": endpoint.url, "iat": u64::MAX, "ath": ath});
    let proof = jsonwebtoken::encode(&header, &claims, &key).unwrap();
    let refused = endpoint.call_with("peek", &format!("DPoP {token}"), &[("dpop", proof.as_str())]).await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.body["error_description"], "the DPoP proof is too old or from the future");
}

/// Every claim a [`MemoryOnceStore`] took, recorded.
#[derive(Debug)]
struct Recording {
    store: modelctx::store::MemoryOnceStore,
    claims: std::sync::Mutex<Vec<String>>,
}

impl modelctx::store::OnceStore for Recording {
    fn claim<'a>(
        &'a self,
        value: &'a str,
        lifetime: std::time::Duration,
    ) -> modelctx::store::StoreFuture<'a, bool> {
        self.claims.lock().unwrap().push(value.to_owned());
        self.store.claim(value, lifetime)
    }
}

/// The DPoP proofs a resource server has seen are remembered in the store it is given
/// (instances behind one balancer share one), not in its own memory.
#[tokio::test]
async fn dpop_proofs_are_remembered_in_the_store_the_resource_server_is_given() {
    let store = Arc::new(Recording {
        store: modelctx::store::MemoryOnceStore::new(16),
        claims: std::sync::Mutex::default(),
    });
    let shared = store.clone();
    let endpoint = start_with(move |authenticator| authenticator.proof_replay(shared)).await;
    let key = DpopKey::generate().unwrap();
    let token = endpoint.signer.token(&endpoint.url, json!({"cnf": {"jkt": key.thumbprint()}}));
    let url = reqwest::Url::parse(&endpoint.url).unwrap();
    let proof = key.proof("POST", &url, Some(&token), None).unwrap();
    let scheme = format!("DPoP {token}");
    let accepted = endpoint.call_with("peek", &scheme, &[("dpop", proof.as_str())]).await;
    assert_eq!(accepted.status, 200, "{:?}", accepted.body);
    let replayed = endpoint.call_with("peek", &scheme, &[("dpop", proof.as_str())]).await;
    assert_eq!(replayed.body["error_description"], "the DPoP proof was used before");
    let claims = store.claims.lock().unwrap().clone();
    assert_eq!(claims.len(), 2, "both uses were checked in the given store: {claims:?}");
    assert_eq!(claims[0], claims[1], "and under the same key");
}

/// An RFC 7662 introspection endpoint on 127.0.0.1 that knows three tokens, for the resource
/// at `audience`, and wants the resource server's own credentials; with the count of calls.
async fn introspection_endpoint(audience: String) -> (String, Arc<AtomicUsize>) {
    use http_body_util::{BodyExt, Full};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let audience = audience.clone();
            let counted = counted.clone();
            let service =
                hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    let audience = audience.clone();
                    counted.fetch_add(1, Ordering::SeqCst);
                    async move {
                        let authenticated =
                            request.headers().get("authorization").and_then(|v| v.to_str().ok())
                                == Some(&format!(
                                    "Basic {}",
                                    base64::engine::general_purpose::STANDARD.encode("rs:rs-secret")
                                ));
                        let body = request.into_body().collect().await.unwrap().to_bytes();
                        let token: String = url::form_urlencoded::parse(&body)
                            .find(|(k, _)| k == "token")
                            .map(|(_, v)| v.into_owned())
                            .unwrap_or_default();
                        let answer = match (authenticated, token.as_str()) {
                            (false, _) => json!({"error": "invalid_client"}),
                            (true, "good") => {
                                json!({"active": true, "aud": audience, "iss": ISSUER, "sub": "carol",
                                                 "scope": "files:read", "exp": now() + 60})
                            }
                            (true, "other-audience") => {
                                json!({"active": true, "aud": "https://other.example.com/mcp", "iss": ISSUER})
                            }
                            _ => json!({"active": false}),
                        };
                        let status = if authenticated { 200 } else { 401 };
                        Ok::<_, std::convert::Infallible>(
                            hyper::Response::builder()
                                .status(status)
                                .body(Full::new(bytes::Bytes::from(answer.to_string())))
                                .unwrap(),
                        )
                    }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (url, calls)
}

#[tokio::test]
async fn auth_39_40_introspected_tokens_must_be_active_and_for_this_resource() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (endpoint, calls) = introspection_endpoint(url.clone()).await;
    let verifier =
        ResourceServer::introspection(&url, ISSUER, endpoint, "rs", modelctx::auth::Secret::new("rs-secret"))
            .unwrap();
    let options = HttpOptions { authenticator: Some(Arc::new(verifier)), ..HttpOptions::default() };
    let (_stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server(), listener, options, async move {
        let _ = stopped.await;
    }));
    // The signer stands unused here: these tokens are opaque, known to the introspection endpoint.
    let endpoint =
        Endpoint { url: url.clone(), signer: signer(), http: reqwest::Client::new(), _stop, _keys: None };
    let good = endpoint.client("good", EraMode::Auto).await;
    assert_eq!(text(&good.call_tool("whoami", json!({})).await.unwrap()), "carol via ?");
    assert_eq!(endpoint.call("write", "good").await.status, 403, "the introspected scopes count");
    for refused in ["inactive", "other-audience"] {
        assert_eq!(endpoint.call("peek", refused).await.status, 401, "{refused}");
    }
    // An active token's answer is kept (for a minute, never past its exp): one call for all
    // these requests, where each used to make its own.
    let before = calls.load(Ordering::SeqCst);
    for _ in 0..5 {
        assert_eq!(endpoint.call("peek", "good").await.status, 200);
    }
    assert!(calls.load(Ordering::SeqCst) - before <= 1, "{} calls", calls.load(Ordering::SeqCst) - before);
}

/// A JWKS endpoint on 127.0.0.1 serving `set` (replaced by [`JwksEndpoint::publish`]): it
/// fails while `failing`, and holds each answer while `stalled` until `release` is told; with
/// the count of requests and of answers.
struct JwksEndpoint {
    url: String,
    served: Arc<std::sync::Mutex<String>>,
    failing: Arc<AtomicBool>,
    stalled: Arc<AtomicBool>,
    release: Arc<tokio::sync::Notify>,
    asked: Arc<AtomicUsize>,
    answered: Arc<AtomicUsize>,
}

impl JwksEndpoint {
    async fn start(set: JwkSet) -> Self {
        use http_body_util::Full;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = Self {
            url: format!("http://{}/jwks", listener.local_addr().unwrap()),
            served: Arc::new(std::sync::Mutex::new(serde_json::to_string(&set).unwrap())),
            failing: Arc::default(),
            stalled: Arc::default(),
            release: Arc::default(),
            asked: Arc::default(),
            answered: Arc::default(),
        };
        let body = endpoint.served.clone();
        let (failing, stalled, release) =
            (endpoint.failing.clone(), endpoint.stalled.clone(), endpoint.release.clone());
        let (asked, answered) = (endpoint.asked.clone(), endpoint.answered.clone());
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let (failing, stalled, release) = (failing.clone(), stalled.clone(), release.clone());
                let (asked, answered, body) = (asked.clone(), answered.clone(), body.clone());
                let service = hyper::service::service_fn(move |_: hyper::Request<hyper::body::Incoming>| {
                    let (failing, stalled, release) = (failing.clone(), stalled.clone(), release.clone());
                    let (answered, body) = (answered.clone(), body.lock().unwrap().clone());
                    asked.fetch_add(1, Ordering::SeqCst);
                    async move {
                        if stalled.load(Ordering::SeqCst) {
                            release.notified().await;
                        }
                        answered.fetch_add(1, Ordering::SeqCst);
                        let status = if failing.load(Ordering::SeqCst) { 500 } else { 200 };
                        Ok::<_, std::convert::Infallible>(
                            hyper::Response::builder()
                                .status(status)
                                .header("content-type", "application/json")
                                .body(Full::new(bytes::Bytes::from(body)))
                                .unwrap(),
                        )
                    }
                });
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
                );
            }
        });
        endpoint
    }

    /// Serves `set` from now on (the authorization server rotated its keys).
    fn publish(&self, set: &JwkSet) {
        *self.served.lock().unwrap() = serde_json::to_string(set).unwrap();
    }
}

/// An endpoint whose resource server fetches its keys from `jwks`.
async fn start_fetching(jwks: &JwksEndpoint, refetch: std::time::Duration) -> Endpoint {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier =
        ResourceServer::jwt(&url, ISSUER, Keys::Url(jwks.url.clone())).unwrap().key_refetch_interval(refetch);
    let options = HttpOptions { authenticator: Some(Arc::new(verifier)), ..HttpOptions::default() };
    let (_stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server(), listener, options, async move {
        let _ = stopped.await;
    }));
    Endpoint { url, signer: signer(), http: reqwest::Client::new(), _stop, _keys: None }
}

/// A key set at a URL is loaded one load at a time, and a token whose key is held never waits
/// for a load under way (the set was locked across a load of up to 15 s).
#[tokio::test]
async fn a_token_whose_key_is_held_does_not_wait_for_a_key_set_load() {
    let jwks = JwksEndpoint::start(JwkSet { keys: vec![signer().public] }).await;
    let endpoint = Arc::new(start_fetching(&jwks, std::time::Duration::ZERO).await);
    let good = endpoint.signer.token(&endpoint.url, json!({}));
    assert_eq!(endpoint.call("peek", &good).await.status, 200);
    assert_eq!(jwks.answered.load(Ordering::SeqCst), 1);
    jwks.stalled.store(true, Ordering::SeqCst);
    let rotated = endpoint.signer.sign_as(&endpoint.signer.stranger, "k9", &endpoint.url, json!({}));
    let waiting = {
        let endpoint = endpoint.clone();
        tokio::spawn(async move { endpoint.call("peek", &rotated).await.status })
    };
    while jwks.asked.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(within(endpoint.call("peek", &good)).await.status, 200, "served while the set loads");
    assert_eq!(jwks.answered.load(Ordering::SeqCst), 1, "the load was still under way");
    jwks.release.notify_one();
    assert_eq!(within(waiting).await.unwrap(), 401, "no key k9 in the set loaded again");
}

/// A load that failed is remembered: tokens arriving meanwhile do not each start another (the
/// authorization server was asked once per token naming a key it lacked).
#[tokio::test]
async fn a_failed_key_set_load_is_not_tried_again_for_every_token() {
    let jwks = JwksEndpoint::start(JwkSet { keys: vec![signer().public] }).await;
    jwks.failing.store(true, Ordering::SeqCst);
    let endpoint = start_fetching(&jwks, std::time::Duration::from_secs(60)).await;
    let good = endpoint.signer.token(&endpoint.url, json!({}));
    for _ in 0..5 {
        let refused = endpoint.call("peek", &good).await;
        assert_eq!(refused.status, 401);
    }
    assert_eq!(jwks.asked.load(Ordering::SeqCst), 1, "one load, remembered as failed");
}

/// The authorization server rotates its keys: a token signed with the new key, whose key id the
/// held set lacks, makes the resource server load the set again and is accepted; the old key's
/// tokens are accepted until it leaves the set (then refused once the set is loaded again).
#[tokio::test]
async fn a_rotated_key_is_loaded_when_a_token_names_it() {
    let old = signer().public;
    let jwks = JwksEndpoint::start(JwkSet { keys: vec![old.clone()] }).await;
    let endpoint = start_fetching(&jwks, std::time::Duration::ZERO).await;
    let before = endpoint.signer.token(&endpoint.url, json!({}));
    assert_eq!(endpoint.call("peek", &before).await.status, 200);

    let mut new = Jwk::from_encoding_key(&endpoint.signer.stranger, Algorithm::ES256).unwrap();
    new.common.key_id = Some("k2".into());
    let rotated = endpoint.signer.sign_as(&endpoint.signer.stranger, "k2", &endpoint.url, json!({}));
    assert_eq!(endpoint.call("peek", &rotated).await.status, 401, "k2 is not published yet");
    jwks.publish(&JwkSet { keys: vec![old, new.clone()] });
    assert_eq!(endpoint.call("peek", &rotated).await.status, 200, "the set was loaded again for k2");
    assert_eq!(endpoint.call("peek", &before).await.status, 200, "k1 is still in the set");
    let loads = jwks.answered.load(Ordering::SeqCst);

    jwks.publish(&JwkSet { keys: vec![new] });
    let unknown = endpoint.signer.sign_as(&endpoint.signer.stranger, "k3", &endpoint.url, json!({}));
    assert_eq!(endpoint.call("peek", &unknown).await.status, 401, "no k3 anywhere");
    assert_eq!(jwks.answered.load(Ordering::SeqCst), loads + 1, "an unknown key id loads the set again");
    assert_eq!(endpoint.call("peek", &before).await.status, 401, "k1 left the set with that load");
    assert_eq!(endpoint.call("peek", &rotated).await.status, 200);
}
