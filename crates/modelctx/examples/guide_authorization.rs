//! The guide's chapter on authorization (docs/guide/src/authorization.md): a server whose
//! tools need OAuth scopes, behind `ResourceServer`, called without a token, with too little
//! scope and with enough. The example signs its own tokens, standing in for an authorization
//! server; `oauth_client` shows the client a host would use against a real one.
//!
//! Run it with `cargo run -p modelctx --features auth --example guide_authorization`.

use std::sync::Arc;

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use modelctx::auth::{FileStore, Keys, LoopbackBrowser, OAuth, OAuthOptions, ResourceServer};
use modelctx::client::{Client, ClientOptions, StaticBearer};
use modelctx::server::{RequestContext, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::types::Implementation;
use p256::pkcs8::EncodePrivateKey;
use serde_json::json;

const ISSUER: &str = "https://auth.example.com";

// ANCHOR: server
/// Notes anyone with `notes:read` may read, and only `notes:write` may change.
fn server() -> Server {
    Server::builder("notes", "1.0.0")
        .tool(ToolDef::new("read_notes", || async { "buy milk" }).scopes(["notes:read"]))
        .tool(
            ToolDef::new("add_note", |ctx: RequestContext| async move {
                let who = ctx.principal().map(|p| p.subject.clone()).unwrap_or_default();
                format!("noted, {who}")
            })
            .scopes(["notes:write"]),
        )
        .build()
        .expect("valid definitions")
}

/// The endpoint at `url` accepts only tokens `ISSUER` signed for it.
fn protected(url: &str, keys: Keys) -> HttpOptions {
    let verifier =
        ResourceServer::jwt(url, ISSUER, keys).expect("a valid URL").scopes_supported(["notes:read"]);
    HttpOptions { authenticator: Some(Arc::new(verifier)), ..HttpOptions::default() }
}
// ANCHOR_END: server

// ANCHOR: client
/// What a host connects with: OAuth through the user's browser, tokens kept in a file. Set
/// it as `ClientOptions::auth`; on the server's first `401` it discovers, registers and
/// opens the browser. `oauth.login().await` does that before connecting.
async fn oauth_client(url: &str) -> OAuth {
    let browser = LoopbackBrowser::bind().await.expect("a loopback port for the redirect");
    let mut options = OAuthOptions::authorization_code(Arc::new(browser));
    options.store = Arc::new(FileStore::new("credentials.json"));
    OAuth::new(url, options).expect("a valid URL")
}
// ANCHOR_END: client

#[tokio::main]
async fn main() {
    // The authorization server's key, and a token signer standing in for it.
    let secret = p256::ecdsa::SigningKey::from_slice(&[42u8; 32]).expect("a P-256 key");
    let key = EncodingKey::from_ec_der(secret.to_pkcs8_der().expect("PKCS#8").as_bytes());
    let public = Jwk::from_encoding_key(&key, Algorithm::ES256).expect("its public key");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let options = protected(&url, Keys::Set(JwkSet { keys: vec![public] }));
    tokio::spawn(serve_http(server(), listener, options, std::future::pending()));

    let token = |scope: &str| {
        let claims = json!({"iss": ISSUER, "aud": url, "sub": "ada", "scope": scope,
                            "exp": jsonwebtoken::get_current_timestamp() + 600});
        jsonwebtoken::encode(&Header::new(Algorithm::ES256), &claims, &key).expect("signed")
    };
    let connect = |token: Option<String>| {
        let mut options = ClientOptions::new(Implementation::new("guide", "1.0.0"));
        options.auth = token.map(|token| Arc::new(StaticBearer::new(token)) as _);
        Client::connect_http(&url, Default::default(), options)
    };

    let refused = connect(None).await.err().expect("no token, no entry");
    println!("without a token: {refused}");
    let reader = connect(Some(token("notes:read"))).await.expect("connected");
    let notes = reader.call_tool("read_notes", json!({})).await.expect("read");
    println!("read_notes: {}", serde_json::to_value(&notes.content).unwrap()[0]["text"]);
    let denied = reader.call_tool("add_note", json!({})).await.expect_err("needs notes:write");
    println!("add_note with notes:read only: {denied}");
    let writer = connect(Some(token("notes:read notes:write"))).await.expect("connected");
    let added = writer.call_tool("add_note", json!({})).await.expect("added");
    println!("add_note: {}", serde_json::to_value(&added.content).unwrap()[0]["text"]);
    // A host connects with the OAuth client instead of a token it already has; building it
    // sends nothing.
    let oauth = oauth_client(&url).await;
    println!("a host's client: {oauth:?}");
}
