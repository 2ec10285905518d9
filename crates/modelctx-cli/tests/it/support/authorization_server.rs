//! A small OAuth 2.1 authorization server on 127.0.0.1, for end-to-end tests of the client and
//! the resource server: RFC 8414 metadata, a JWKS, dynamic registration, an authorization
//! endpoint that approves at once (checking the client, redirect URI, PKCE and resource) and a
//! token endpoint for codes and refresh tokens (rotated), client credentials (two clients
//! registered beforehand: [`MACHINE_CLIENT`] with a secret, [`KEYED_CLIENT`] with a key,
//! `private_key_jwt`) and workload JWTs (RFC 7523 bearer assertions a
//! platform of the test's own signs, [`AuthorizationServer::workload_assertion`]), that issues
//! ES256 JWTs for the requested resource. It remembers every secret it issued, so a test can look for them in
//! logs, and counts what it was asked.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use p256::pkcs8::EncodePrivateKey;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The client registered beforehand for the client credentials grant, and its secret
/// (`client_secret_post`).
pub const MACHINE_CLIENT: &str = "machine-client";
/// [`MACHINE_CLIENT`]'s secret.
pub const MACHINE_SECRET: &str = "machine-secret-4f1c9e";
/// The client registered beforehand with a public key (`private_key_jwt`, ES256): its private
/// key is [`AuthorizationServer::keyed_client_pem`].
pub const KEYED_CLIENT: &str = "keyed-client";
/// The `client_assertion_type` of a `private_key_jwt` client assertion (RFC 7523 §2.2).
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The issuer of the workload assertions the server trusts.
const WORKLOAD_ISSUER: &str = "https://workload.platform.test";

/// What the server was asked and what it gave.
#[derive(Default)]
pub struct Record {
    /// Client ids registered, with their redirect URIs.
    pub clients: HashMap<String, Vec<String>>,
    /// The `scope` of each authorization request, in order.
    pub authorizations: Vec<String>,
    /// The `grant_type` of each token request, in order.
    pub grants: Vec<String>,
    /// Every code, access token and refresh token issued.
    pub secrets: Vec<String>,
    /// Codes not yet redeemed: (client, redirect URI, challenge, scope, resource).
    codes: HashMap<String, (String, String, String, String, String)>,
    /// Live refresh tokens: (client, scope, resource).
    refresh: HashMap<String, (String, String, String)>,
}

/// The running server.
pub struct AuthorizationServer {
    /// Its issuer identifier, `http://127.0.0.1:PORT`.
    pub issuer: String,
    /// What it was asked.
    pub record: Arc<Mutex<Record>>,
    /// Issue the first access token already expired (to see the client refresh on a 401).
    pub expire_first: Arc<std::sync::atomic::AtomicBool>,
    state: Arc<State>,
    _runtime: tokio::runtime::Runtime,
}

struct State {
    issuer: String,
    key: EncodingKey,
    /// The workload platform's key: it signs assertions, the server checks them.
    workload: (EncodingKey, DecodingKey),
    /// [`KEYED_CLIENT`]'s key: the private half as PEM (for the test), the public half registered.
    keyed_client: (String, DecodingKey),
    jwks: Value,
    record: Arc<Mutex<Record>>,
    expire_first: Arc<std::sync::atomic::AtomicBool>,
}

/// `key` as PKCS#8 PEM (what `--private-key` reads).
pub fn pkcs8_pem(key: &p256::ecdsa::SigningKey) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(key.to_pkcs8_der().unwrap().as_bytes());
    let lines: Vec<&str> =
        body.as_bytes().chunks(64).map(|line| std::str::from_utf8(line).unwrap()).collect();
    format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", lines.join("\n"))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn random() -> String {
    let mut bytes = [0u8; 18];
    getrandom::fill(&mut bytes).unwrap();
    URL_SAFE_NO_PAD.encode(bytes)
}

impl AuthorizationServer {
    /// Starts the server on a free loopback port, on a runtime of its own.
    pub fn start() -> Self {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let address: SocketAddr = listener.local_addr().unwrap();
        let issuer = format!("http://{address}");
        let signing = p256::ecdsa::SigningKey::from_slice(&[11u8; 32]).unwrap();
        let key = EncodingKey::from_ec_der(signing.to_pkcs8_der().unwrap().as_bytes());
        let mut public = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
        public.common.key_id = Some("as-key".into());
        let jwks = serde_json::to_value(JwkSet { keys: vec![public] }).unwrap();
        let platform = p256::ecdsa::SigningKey::from_slice(&[12u8; 32]).unwrap();
        let platform_key = EncodingKey::from_ec_der(platform.to_pkcs8_der().unwrap().as_bytes());
        let platform_public = Jwk::from_encoding_key(&platform_key, Algorithm::ES256).unwrap();
        let workload = (platform_key, DecodingKey::from_jwk(&platform_public).unwrap());
        let client_key = p256::ecdsa::SigningKey::from_slice(&[13u8; 32]).unwrap();
        let client_der = client_key.to_pkcs8_der().unwrap();
        let client_pem = pkcs8_pem(&client_key);
        let client_public =
            Jwk::from_encoding_key(&EncodingKey::from_ec_der(client_der.as_bytes()), Algorithm::ES256)
                .unwrap();
        let keyed_client = (client_pem, DecodingKey::from_jwk(&client_public).unwrap());
        let record = Arc::new(Mutex::new(Record::default()));
        let expire_first = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let state = Arc::new(State {
            issuer: issuer.clone(),
            key,
            workload,
            keyed_client,
            jwks,
            record: record.clone(),
            expire_first: expire_first.clone(),
        });
        let serving = state.clone();
        runtime.spawn(async move {
            let state = serving;
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let state = state.clone();
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let state = state.clone();
                    async move { Ok::<_, Infallible>(state.handle(request).await) }
                });
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service),
                );
            }
        });
        Self { issuer, record, expire_first, state, _runtime: runtime }
    }

    /// An access token for `subject`, good for an hour, naming `resource` and `scope`, signed
    /// as the token endpoint signs them (with no flow: for tests of a resource server's rules).
    pub fn access_token(&self, subject: &str, resource: &str, scope: &str) -> String {
        self.state.sign(subject, "test-client", resource, scope, now() + 3600)
    }

    /// A JWT the workload platform issued for `subject`, addressed to this server, good for
    /// ten minutes: what a workload presents with the RFC 7523 bearer grant.
    pub fn workload_assertion(&self, subject: &str) -> String {
        let claims = json!({"iss": WORKLOAD_ISSUER, "sub": subject, "aud": self.issuer, "iat": now(),
                            "exp": now() + 600});
        jsonwebtoken::encode(&Header::new(Algorithm::ES256), &claims, &self.state.workload.0).unwrap()
    }

    /// [`KEYED_CLIENT`]'s private key, PKCS#8 PEM: what the client signs its assertions with.
    pub fn keyed_client_pem(&self) -> String {
        self.state.keyed_client.0.clone()
    }

    /// The JWKS URL.
    pub fn jwks_uri(&self) -> String {
        format!("{}/jwks", self.issuer)
    }

    /// Every secret issued so far.
    pub fn secrets(&self) -> Vec<String> {
        self.record.lock().unwrap().secrets.clone()
    }
}

fn json_response(status: u16, body: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

fn oauth_error(error: &str, description: &str) -> Response<Full<Bytes>> {
    json_response(400, json!({"error": error, "error_description": description}))
}

fn form(body: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

impl State {
    /// An ES256 access token of this issuer.
    fn sign(&self, subject: &str, client: &str, resource: &str, scope: &str, exp: u64) -> String {
        let claims = json!({"iss": self.issuer, "sub": subject, "aud": resource, "client_id": client,
                            "scope": scope, "iat": now(), "exp": exp});
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("as-key".into());
        jsonwebtoken::encode(&header, &claims, &self.key).unwrap()
    }

    async fn handle(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let path = request.uri().path().to_owned();
        let query = form(request.uri().query().unwrap_or_default().as_bytes());
        let method = request.method().clone();
        let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        match (method.as_str(), path.as_str()) {
            ("GET", "/.well-known/oauth-authorization-server") => json_response(200, self.metadata()),
            ("GET", "/jwks") => json_response(200, self.jwks.clone()),
            ("POST", "/register") => self.register(&body),
            ("GET", "/authorize") => self.authorize(&query),
            ("POST", "/token") => self.token(&form(&body)),
            _ => json_response(404, json!({"error": "not_found"})),
        }
    }

    fn metadata(&self) -> Value {
        let base = &self.issuer;
        json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "jwks_uri": format!("{base}/jwks"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials",
                                      "urn:ietf:params:oauth:grant-type:jwt-bearer"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
            "authorization_response_iss_parameter_supported": true,
            "scopes_supported": ["everything:read", "everything:write", "offline_access"],
        })
    }

    fn register(&self, body: &[u8]) -> Response<Full<Bytes>> {
        let request: Value = serde_json::from_slice(body).unwrap_or_default();
        let redirects: Vec<String> = request["redirect_uris"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|u| u.as_str().map(str::to_owned))
            .collect();
        if redirects.is_empty() || request["application_type"] != "native" {
            return oauth_error("invalid_client_metadata", "a native client with redirect URIs");
        }
        let client_id = format!("client-{}", random());
        self.record.lock().unwrap().clients.insert(client_id.clone(), redirects.clone());
        json_response(
            201,
            json!({"client_id": client_id, "redirect_uris": redirects, "token_endpoint_auth_method": "none"}),
        )
    }

    fn authorize(&self, query: &HashMap<String, String>) -> Response<Full<Bytes>> {
        let get = |name: &str| query.get(name).cloned().unwrap_or_default();
        let mut record = self.record.lock().unwrap();
        let redirect = get("redirect_uri");
        let known = record.clients.get(&get("client_id")).is_some_and(|uris| {
            // Loopback redirect URIs match on any port (RFC 8252 §7.3).
            let without_port = |u: &str| {
                url::Url::parse(u)
                    .map(|mut u| {
                        let _ = u.set_port(None);
                        u.to_string()
                    })
                    .ok()
            };
            uris.iter().any(|u| without_port(u) == without_port(&redirect))
        });
        if !known
            || get("response_type") != "code"
            || get("code_challenge_method") != "S256"
            || get("resource").is_empty()
        {
            return oauth_error("invalid_request", "an unknown client, redirect URI, or no PKCE or resource");
        }
        let code = random();
        record.authorizations.push(get("scope"));
        record.secrets.push(code.clone());
        record.codes.insert(
            code.clone(),
            (get("client_id"), redirect.clone(), get("code_challenge"), get("scope"), get("resource")),
        );
        let mut location = url::Url::parse(&redirect).unwrap();
        location
            .query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &get("state"))
            .append_pair("iss", &self.issuer);
        Response::builder()
            .status(302)
            .header("location", location.as_str())
            .body(Full::new(Bytes::new()))
            .unwrap()
    }

    /// The client registered beforehand that authenticated this token request: [`MACHINE_CLIENT`]
    /// by its secret, or [`KEYED_CLIENT`] by an assertion its key signed, about itself, for this
    /// server, not expired.
    fn machine_client(&self, form: &HashMap<String, String>) -> Option<String> {
        let get = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
        if get("client_assertion_type") == CLIENT_ASSERTION_TYPE {
            let mut validation = Validation::new(Algorithm::ES256);
            validation.set_issuer(&[KEYED_CLIENT]);
            validation.sub = Some(KEYED_CLIENT.to_owned());
            validation.set_audience(&[&self.issuer, &format!("{}/token", self.issuer)]);
            let verified =
                jsonwebtoken::decode::<Value>(get("client_assertion"), &self.keyed_client.1, &validation);
            let named = get("client_id").is_empty() || get("client_id") == KEYED_CLIENT;
            return (verified.is_ok_and(|claims| claims.claims["jti"].is_string()) && named)
                .then(|| KEYED_CLIENT.to_owned());
        }
        (get("client_id") == MACHINE_CLIENT && get("client_secret") == MACHINE_SECRET)
            .then(|| MACHINE_CLIENT.to_owned())
    }

    fn token(&self, form: &HashMap<String, String>) -> Response<Full<Bytes>> {
        let get = |name: &str| form.get(name).cloned().unwrap_or_default();
        let grant = get("grant_type");
        let mut record = self.record.lock().unwrap();
        record.grants.push(grant.clone());
        // Who the token is for, its client, scope and resource, and whether it may be refreshed.
        let (subject, client, scope, resource, refreshable) = match grant.as_str() {
            "authorization_code" => {
                let Some((client, redirect, challenge, scope, resource)) = record.codes.remove(&get("code"))
                else {
                    return oauth_error("invalid_grant", "an unknown or used code");
                };
                let verified =
                    URL_SAFE_NO_PAD.encode(Sha256::digest(get("code_verifier").as_bytes())) == challenge;
                if !verified
                    || client != get("client_id")
                    || redirect != get("redirect_uri")
                    || resource != get("resource")
                {
                    return oauth_error(
                        "invalid_grant",
                        "the verifier, client, redirect URI or resource differ",
                    );
                }
                ("alice".to_owned(), client, scope, resource, true)
            }
            "refresh_token" => {
                let Some((client, scope, resource)) = record.refresh.remove(&get("refresh_token")) else {
                    return oauth_error("invalid_grant", "an unknown or rotated refresh token");
                };
                ("alice".to_owned(), client, scope, resource, true)
            }
            "client_credentials" => {
                let Some(client) = self.machine_client(form) else {
                    return json_response(401, json!({"error": "invalid_client"}));
                };
                (client.clone(), client, get("scope"), get("resource"), false)
            }
            "urn:ietf:params:oauth:grant-type:jwt-bearer" => {
                let mut validation = Validation::new(Algorithm::ES256);
                validation.set_issuer(&[WORKLOAD_ISSUER]);
                validation.set_audience(&[&self.issuer]);
                let Ok(claims) =
                    jsonwebtoken::decode::<Value>(&get("assertion"), &self.workload.1, &validation)
                else {
                    return oauth_error("invalid_grant", "an assertion the workload platform did not sign");
                };
                let subject = claims.claims["sub"].as_str().unwrap_or_default().to_owned();
                (subject, "workload".to_owned(), get("scope"), get("resource"), false)
            }
            _ => return oauth_error("unsupported_grant_type", "no such grant here"),
        };
        let expired = self.expire_first.swap(false, std::sync::atomic::Ordering::SeqCst);
        let exp = if expired { now() - 3600 } else { now() + 3600 };
        let access = self.sign(&subject, &client, &resource, &scope, exp);
        record.secrets.push(access.clone());
        let mut tokens =
            json!({"access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": scope});
        if refreshable {
            let refresh = random();
            record.secrets.push(refresh.clone());
            record.refresh.insert(refresh.clone(), (client, scope, resource));
            tokens["refresh_token"] = json!(refresh);
        }
        json_response(200, tokens)
    }
}
