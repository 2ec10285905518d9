//! Requests to an authorization server's token endpoint: the grant's parameters, the
//! `resource` (RFC 8707), the client's authentication (none, `client_secret_basic`,
//! `client_secret_post`, `private_key_jwt`), and a DPoP proof answered with the server's
//! nonce when it asks for one (RFC 9449 §8).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::Url;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};

use super::dpop::DpopKey;
use super::fetch::{Fetched, Fetcher};
use super::metadata::ServerMetadata;
use super::options::SigningKey;
use super::store::{RegisteredClient, Secret, TokenSet, unix_now};
use super::{AuthError, pkce};

/// What the token endpoint answers on success (RFC 6749 §5.1).
#[derive(Deserialize)]
struct TokenResponse {
    access_token: Secret,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<Secret>,
    #[serde(default)]
    scope: Option<String>,
}

/// The authorization server a token request goes to, and how the client proves itself.
pub(crate) struct TokenEndpoint<'a> {
    pub fetcher: &'a Fetcher,
    pub issuer: &'a str,
    pub metadata: &'a ServerMetadata,
    /// The client, when the grant authenticates one.
    pub client: Option<&'a RegisteredClient>,
    /// The key of a `private_key_jwt` client.
    pub signing_key: Option<&'a SigningKey>,
    /// The DPoP key, when tokens are bound.
    pub dpop: Option<&'a DpopKey>,
}

/// The nonce a server gave for DPoP proofs, kept between requests.
pub(crate) type Nonce = Option<String>;

impl TokenEndpoint<'_> {
    /// Sends `grant` (its form parameters) and returns the tokens, with `scopes` as asked
    /// when the server does not say which it granted.
    pub async fn request(
        &self,
        grant: &[(&str, &str)],
        scopes: &[String],
        nonce: &mut Nonce,
    ) -> Result<TokenSet, AuthError> {
        let endpoint = self.metadata.token_endpoint.as_deref().ok_or_else(|| {
            AuthError::Discovery(format!("the authorization server {} names no token endpoint", self.issuer))
        })?;
        let endpoint = Url::parse(endpoint)
            .map_err(|e| AuthError::Discovery(format!("the token endpoint {endpoint} is not a URL: {e}")))?;
        let mut form: Vec<(&str, String)> = grant.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
        let mut headers = HeaderMap::new();
        self.authenticate(&mut form, &mut headers)?;
        // One retry, for the nonce a DPoP server asks for.
        for _ in 0..2 {
            let mut headers = headers.clone();
            if let Some(key) = self.dpop {
                headers.insert("DPoP", header(key.proof("POST", &endpoint, None, nonce.as_deref())?)?);
            }
            let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let answer = self.fetcher.post_form(&endpoint, &pairs, headers).await?;
            if answer.status.is_success() {
                return tokens(&answer, scopes);
            }
            let asked_nonce = answer.headers.get("DPoP-Nonce").and_then(|v| v.to_str().ok());
            match (answer.oauth_error(), asked_nonce) {
                (AuthError::Denied { error, .. }, Some(given))
                    if error == "use_dpop_nonce" && self.dpop.is_some() =>
                {
                    *nonce = Some(given.to_owned());
                }
                (refused, _) => return Err(refused),
            }
        }
        Err(AuthError::Refused("the token endpoint asked for a DPoP nonce twice".into()))
    }

    /// Adds the client's authentication to the request, choosing the method its registration
    /// named, else the first the server supports of what the client can do.
    fn authenticate(&self, form: &mut Vec<(&str, String)>, headers: &mut HeaderMap) -> Result<(), AuthError> {
        let Some(client) = self.client else { return Ok(()) };
        let method = client.auth_method.clone().unwrap_or_else(|| self.choose_method(client).to_owned());
        let secret = || {
            client.client_secret.as_ref().ok_or_else(|| {
                AuthError::Config(format!(
                    "{method} needs a client secret, and {} has none",
                    client.client_id
                ))
            })
        };
        match method.as_str() {
            "client_secret_basic" => {
                let user = form_encode(&client.client_id);
                let password = form_encode(secret()?.expose());
                let mut value = header(format!("Basic {}", STANDARD.encode(format!("{user}:{password}"))))?;
                value.set_sensitive(true);
                headers.insert(AUTHORIZATION, value);
            }
            "client_secret_post" => {
                form.push(("client_id", client.client_id.clone()));
                form.push(("client_secret", secret()?.expose().to_owned()));
            }
            "private_key_jwt" => {
                let key = self.signing_key.ok_or_else(|| {
                    AuthError::Config(format!(
                        "private_key_jwt needs a signing key, and {} has none",
                        client.client_id
                    ))
                })?;
                form.push(("client_id", client.client_id.clone()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into(),
                ));
                form.push(("client_assertion", client_assertion(&client.client_id, self.issuer, key)?));
            }
            _ => form.push(("client_id", client.client_id.clone())),
        }
        Ok(())
    }

    fn choose_method(&self, client: &RegisteredClient) -> &'static str {
        let allows = |method| self.metadata.allows_auth_method(method);
        if self.signing_key.is_some() && allows("private_key_jwt") {
            "private_key_jwt"
        } else if client.client_secret.is_some() && allows("client_secret_basic") {
            "client_secret_basic"
        } else if client.client_secret.is_some() && allows("client_secret_post") {
            "client_secret_post"
        } else if client.client_secret.is_some() && !allows("none") {
            "client_secret_basic"
        } else {
            "none"
        }
    }
}

/// The tokens of a successful answer.
fn tokens(answer: &Fetched, asked: &[String]) -> Result<TokenSet, AuthError> {
    let response: TokenResponse = serde_json::from_slice(&answer.body)
        .map_err(|e| AuthError::Http(format!("the token endpoint's answer is not a token response: {e}")))?;
    Ok(TokenSet {
        access_token: response.access_token,
        token_type: response.token_type.unwrap_or_else(|| "Bearer".into()),
        refresh_token: response.refresh_token,
        expires_at: response.expires_in.map(|seconds| unix_now() + seconds),
        scopes: match response.scope {
            Some(scope) => super::challenge::split_scopes(&scope),
            None => asked.to_vec(),
        },
        dpop_key: None,
        resource: None,
    })
}

#[derive(Serialize)]
struct AssertionClaims<'a> {
    iss: &'a str,
    sub: &'a str,
    aud: &'a str,
    iat: u64,
    exp: u64,
    jti: String,
}

/// A `private_key_jwt` assertion (RFC 7523 §3): issued by and about the client, for the
/// authorization server (its issuer as the audience), valid for a minute.
fn client_assertion(client_id: &str, issuer: &str, key: &SigningKey) -> Result<String, AuthError> {
    let algorithm: jsonwebtoken::Algorithm = key
        .algorithm
        .parse()
        .map_err(|_| AuthError::Config(format!("{} is not a JWS algorithm", key.algorithm)))?;
    let pem = key.pem.expose().as_bytes();
    let encoding = match algorithm {
        jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
            jsonwebtoken::EncodingKey::from_ec_pem(pem)
        }
        jsonwebtoken::Algorithm::EdDSA => jsonwebtoken::EncodingKey::from_ed_pem(pem),
        jsonwebtoken::Algorithm::HS256 | jsonwebtoken::Algorithm::HS384 | jsonwebtoken::Algorithm::HS512 => {
            return Err(AuthError::Config("private_key_jwt needs an asymmetric algorithm".into()));
        }
        _ => jsonwebtoken::EncodingKey::from_rsa_pem(pem),
    }
    .map_err(|e| AuthError::Config(format!("the client's signing key does not parse: {e}")))?;
    let now = unix_now();
    let claims = AssertionClaims {
        iss: client_id,
        sub: client_id,
        aud: issuer,
        iat: now,
        exp: now + 60,
        jti: pkce::random_string()?,
    };
    jsonwebtoken::encode(&jsonwebtoken::Header::new(algorithm), &claims, &encoding)
        .map_err(|e| AuthError::Config(format!("the client assertion could not be signed: {e}")))
}

/// `application/x-www-form-urlencoded` of one value, as RFC 6749 §2.3.1 asks of the Basic
/// credentials.
fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

fn header(value: String) -> Result<HeaderValue, AuthError> {
    HeaderValue::try_from(value).map_err(|_| AuthError::Config("a value a header cannot carry".into()))
}
