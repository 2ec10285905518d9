//! The OAuth client's refusals that the conformance suite does not exercise, against a
//! protected resource and authorization server metadata served on 127.0.0.1.
#![cfg(feature = "auth")]

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use modelctx::auth::store::{IssuerCredentials, TokenSet};
use modelctx::auth::{AuthError, FetchLimits, Fetcher, MemoryStore, OAuth, OAuthOptions, Secret, UserAgent};
use modelctx::client::egress::Egress;
use modelctx::client::{Client, ClientOptions, HttpAuth};
use modelctx::protocol::types::Implementation;
use reqwest::Url;
use serde_json::{Value, json};

/// Serves `/mcp` (always `401` with a challenge), its resource metadata, and the
/// authorization server metadata `metadata` makes of the base URL; records every path asked.
async fn serve(metadata: fn(&str) -> Value) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (seen, root) = (asked.clone(), base.clone());
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (seen, root) = (seen.clone(), root.clone());
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let (seen, root) = (seen.clone(), root.clone());
                async move {
                    let path = request.uri().path().to_owned();
                    seen.lock().unwrap().push(path.clone());
                    let (status, body, challenge) = match path.as_str() {
                        "/mcp" => (401, json!({"error": "invalid_token"}), true),
                        "/.well-known/oauth-protected-resource/mcp" => (
                            200,
                            json!({"resource": format!("{root}/mcp"), "authorization_servers": [root.clone()]}),
                            false,
                        ),
                        "/.well-known/oauth-authorization-server" => (200, metadata(&root), false),
                        "/register" => (201, json!({"client_id": "registered"}), false),
                        _ => (404, json!({}), false),
                    };
                    let mut response =
                        hyper::Response::builder().status(status).header("content-type", "application/json");
                    if challenge {
                        let header = format!(
                            r#"Bearer resource_metadata="{root}/.well-known/oauth-protected-resource/mcp""#
                        );
                        response = response.header("www-authenticate", header);
                    }
                    Ok::<_, Infallible>(
                        response.body(Full::new(Bytes::from(body.to_string())).boxed_unsync()).unwrap(),
                    )
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (base, asked)
}

fn metadata_with(root: &str, extra: Value) -> Value {
    let mut metadata = json!({
        "issuer": root, "authorization_endpoint": format!("{root}/authorize"),
        "token_endpoint": format!("{root}/token"), "registration_endpoint": format!("{root}/register"),
        "token_endpoint_auth_methods_supported": ["none"],
    });
    for (name, value) in extra.as_object().unwrap() {
        metadata[name] = value.clone();
    }
    metadata
}

/// A user agent that comes back with a redirect it was given, whatever the request.
#[derive(Debug)]
struct Answering(fn(&Url) -> String);

impl UserAgent for Answering {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:9/callback".into()
    }

    fn authorize<'a>(&'a self, url: &'a Url, _: &'a Fetcher) -> BoxFuture<'a, Result<Url, AuthError>> {
        let callback = (self.0)(url);
        Box::pin(async move { Ok(Url::parse(&callback).unwrap()) })
    }
}

fn options(agent: Answering) -> OAuthOptions {
    let mut options = OAuthOptions::authorization_code(Arc::new(agent));
    options.fetch = FetchLimits { egress: Egress::Any, ..FetchLimits::default() };
    options
}

async fn connect(url: &str, options: OAuthOptions) -> modelctx::client::ClientError {
    let client_options = ClientOptions {
        auth: Some(Arc::new(OAuth::new(url, options).unwrap())),
        ..ClientOptions::new(Implementation::new("t", "1"))
    };
    Client::connect_http(url, Default::default(), client_options).await.err().expect("refused")
}

/// The `state` of an authorization request URL.
fn state_of(url: &Url) -> String {
    url.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()).unwrap_or_default()
}

#[tokio::test]
async fn auth_28_an_authorization_server_without_pkce_methods_is_not_used() {
    let (base, asked) = serve(|root| metadata_with(root, json!({}))).await;
    let error =
        connect(&format!("{base}/mcp"), options(Answering(|_| unreachable!("no authorization request"))))
            .await;
    assert!(error.is_auth(), "{error:?}");
    assert!(error.to_string().contains("does not offer PKCE with S256"), "{error}");
    assert!(!asked.lock().unwrap().iter().any(|p| p == "/token"));
}

#[tokio::test]
async fn auth_34_an_error_answer_with_another_issuer_is_neither_acted_on_nor_shown() {
    let (base, asked) =
        serve(|root| metadata_with(root, json!({"code_challenge_methods_supported": ["S256"]}))).await;
    let forged = Answering(|url| {
        format!(
            "http://127.0.0.1:9/callback?error=access_denied&error_description=call+evil.example&state={}&iss=https%3A%2F%2Fevil.example",
            state_of(url)
        )
    });
    let error = connect(&format!("{base}/mcp"), options(forged)).await.to_string();
    assert!(error.contains("names the issuer https://evil.example"), "{error}");
    assert!(!error.contains("access_denied") && !error.contains("call evil"), "{error}");
    assert!(!asked.lock().unwrap().iter().any(|p| p == "/token"));
    // A response whose state is not the one sent is refused too.
    let (base, _) =
        serve(|root| metadata_with(root, json!({"code_challenge_methods_supported": ["S256"]}))).await;
    let replayed = Answering(|_| "http://127.0.0.1:9/callback?code=c&state=someone-elses".into());
    let error = connect(&format!("{base}/mcp"), options(replayed)).await.to_string();
    assert!(error.contains("state is not the one sent"), "{error}");
}

#[tokio::test]
async fn auth_41_tokens_of_one_server_are_never_sent_to_another() {
    let store = Arc::new(MemoryStore::new());
    let mut kept = IssuerCredentials::default();
    kept.tokens.insert(
        "https://a.example.com/mcp".into(),
        TokenSet {
            access_token: Secret::new("token-for-a"),
            token_type: "Bearer".into(),
            refresh_token: None,
            expires_at: None,
            scopes: Vec::new(),
            resource: Some("https://a.example.com/mcp".into()),
            dpop_key: None,
        },
    );
    modelctx::auth::CredentialStore::put(&*store, "https://as.example.com", kept).await.unwrap();
    let for_server = |url: &str| {
        let mut options = options(Answering(|_| unreachable!()));
        options.store = store.clone();
        OAuth::new(url, options).unwrap()
    };
    let mut to_b =
        reqwest::Request::new(reqwest::Method::POST, Url::parse("https://b.example.com/mcp").unwrap());
    for_server("https://b.example.com/mcp").authorize(&mut to_b).await.unwrap();
    assert!(to_b.headers().get("authorization").is_none());
    let mut to_a =
        reqwest::Request::new(reqwest::Method::POST, Url::parse("https://a.example.com/mcp").unwrap());
    for_server("https://a.example.com/mcp").authorize(&mut to_a).await.unwrap();
    assert_eq!(to_a.headers()["authorization"], "Bearer token-for-a");
}

/// SEC-03: an authorization endpoint the user agent would open is checked like every other
/// URL a server names: a `javascript:`, `data:` or `file:` one, or plain `http` to a host
/// that is not loopback, is refused and never handed to the browser.
#[tokio::test]
async fn sec_03_an_unsafe_authorization_url_is_never_opened() {
    /// Metadata whose authorization endpoint is a script.
    fn script(root: &str) -> Value {
        with_endpoint(root, "javascript:alert(document.cookie)")
    }
    /// Metadata whose authorization endpoint is plain http to another machine.
    fn remote_http(root: &str) -> Value {
        with_endpoint(root, "http://as.example/authorize")
    }
    fn with_endpoint(root: &str, endpoint: &str) -> Value {
        metadata_with(
            root,
            json!({"code_challenge_methods_supported": ["S256"], "authorization_endpoint": endpoint}),
        )
    }
    /// Authorization server metadata made from the base URL.
    type Metadata = fn(&str) -> Value;
    let cases: [(Metadata, &str); 2] = [
        (script, "the javascript: scheme is not allowed"),
        (remote_http, "authorization URLs must be https"),
    ];
    for (metadata, refusal) in cases {
        let (base, _asked) = serve(metadata).await;
        let never = Answering(|url| unreachable!("{url} was handed to the user agent"));
        let error = connect(&format!("{base}/mcp"), options(never)).await.to_string();
        assert!(error.contains(refusal), "{error}");
    }
}
