//! The resource server: [`ResourceServer`] is the [`Authenticator`] of an MCP endpoint that
//! accepts only access tokens its authorization server issued for it.
//!
//! A token is read from the `Authorization` header only (a query-string token is refused,
//! AUTH-38) and verified as a JWT against the authorization server's key set (a file or a
//! URL, fetched again for an unknown key id: rotation), with the algorithms allowed (never
//! `none`, never an HMAC algorithm with a public key), the issuer, the audience (this
//! resource: a token for another service is refused, AUTH-39/42) and the expiry with a bounded
//! leeway; or by RFC 7662 introspection. A DPoP-bound token (`cnf.jkt`) needs the `DPoP`
//! scheme and a fresh proof for this request (RFC 9449 §7), never seen before.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::future::BoxFuture;
use http::header::{AUTHORIZATION, HeaderMap};
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use reqwest::Url;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::AuthError;
use super::challenge::{Challenge, split_scopes};
use super::fetch::{FetchLimits, Fetcher};
use super::introspected::Introspected;
use super::keyset::{KeySet, Keys};
use super::metadata::{canonical_resource, resource_metadata_urls};
use super::store::{Secret, unix_now};
use crate::client::egress::Egress;
use crate::server::Principal;
use crate::store::{MemoryOnceStore, OnceStore};
use crate::transport::http::{Authenticator, Denial, RequestHead};

/// The asymmetric algorithms accepted by default. HMAC (`HS*`) is never among them: the
/// authorization server's keys are public, and a key set cannot hold a shared secret.
pub const DEFAULT_ALGORITHMS: [Algorithm; 8] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

/// How tokens are verified.
#[derive(Debug)]
enum Verifier {
    Jwt { keys: KeySet, algorithms: Vec<Algorithm> },
    Introspection { endpoint: String, client_id: String, client_secret: Secret, answers: Introspected },
}

/// The most DPoP proof ids remembered in memory; past it the soonest to expire are forgotten
/// (a proof is accepted only within its lifetime, so at any real request rate they have).
const MAX_REMEMBERED_PROOFS: usize = 100_000;

/// Verifies access tokens for one MCP endpoint; see the module documentation. Set it as
/// `HttpOptions::authenticator`.
#[derive(Debug)]
pub struct ResourceServer {
    resource: String,
    resource_url: Url,
    issuer: String,
    audience: String,
    scopes_supported: Vec<String>,
    /// Scopes that include others (`files` includes `files:read`), AUTH-46.
    implies: HashMap<String, Vec<String>>,
    verifier: Verifier,
    leeway: Duration,
    proof_lifetime: Duration,
    fetcher: Fetcher,
    /// The `jti`s of DPoP proofs seen within their lifetime.
    replay: Arc<dyn OnceStore>,
}

impl ResourceServer {
    /// The resource server of the MCP endpoint at `resource` (its public URL, as clients
    /// reach it), accepting JWTs issued by `issuer` and signed with `keys`.
    pub fn jwt(resource: &str, issuer: impl Into<String>, keys: Keys) -> Result<Self, AuthError> {
        let keys = KeySet::new(keys);
        Self::new(resource, issuer.into(), Verifier::Jwt { keys, algorithms: DEFAULT_ALGORITHMS.to_vec() })
    }

    /// The resource server of `resource`, asking `endpoint` (RFC 7662) about each token,
    /// authenticated as `client_id` with `client_secret`.
    pub fn introspection(
        resource: &str,
        issuer: impl Into<String>,
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: Secret,
    ) -> Result<Self, AuthError> {
        let verifier = Verifier::Introspection {
            endpoint: endpoint.into(),
            client_id: client_id.into(),
            client_secret,
            answers: Introspected::new(Duration::from_secs(60)),
        };
        Self::new(resource, issuer.into(), verifier)
    }

    fn new(resource: &str, issuer: String, verifier: Verifier) -> Result<Self, AuthError> {
        let resource_url =
            Url::parse(resource).map_err(|e| AuthError::Config(format!("the resource {resource:?}: {e}")))?;
        let resource = canonical_resource(&resource_url);
        let fetcher = Fetcher::new(FetchLimits { egress: Egress::Any, ..FetchLimits::default() })?;
        Ok(Self {
            audience: resource.clone(),
            resource,
            resource_url,
            issuer,
            scopes_supported: Vec::new(),
            implies: HashMap::new(),
            verifier,
            leeway: Duration::from_secs(30),
            proof_lifetime: Duration::from_secs(60),
            fetcher,
            replay: Arc::new(MemoryOnceStore::new(MAX_REMEMBERED_PROOFS)),
        })
    }

    /// Where the ids of DPoP proofs are remembered, so that none is used twice (default: this
    /// process's memory, 100,000 at most). Instances behind one balancer share one store
    /// (`modelctx_redis::RedisOnceStore`), or a proof replayed to another instance gets in.
    pub fn proof_replay(mut self, store: Arc<dyn OnceStore>) -> Self {
        self.replay = store;
        self
    }

    /// The audience a token must name, when it is not the resource URL itself.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = audience.into();
        self
    }

    /// The scopes published in the metadata and asked for in a `401` challenge.
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Declares that a token granted `scope` holds `included` too (a scope hierarchy: `files`
    /// includes `files:read` and `files:write`), so that a caller with the broader scope
    /// passes a check for a narrower one (AUTH-46). Inclusion is followed transitively.
    pub fn scope_includes(
        mut self,
        scope: impl Into<String>,
        included: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.implies.entry(scope.into()).or_default().extend(included.into_iter().map(Into::into));
        self
    }

    /// The clock skew allowed on `exp`, `nbf` and DPoP `iat`. Default 30 s, at most 5 minutes.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway.min(Duration::from_secs(300));
        self
    }

    /// The least time between two fetches of a key set at a URL, when tokens name key ids it
    /// lacks (a load that failed counts: it is not tried again sooner). Default 1 minute.
    pub fn key_refetch_interval(mut self, every: Duration) -> Self {
        if let Verifier::Jwt { keys, .. } = &mut self.verifier {
            keys.set_refetch_every(every);
        }
        self
    }

    /// How long introspection's answer for an active token is kept (never past the token's
    /// `exp`); zero keeps none. Default 1 minute: a token revoked meanwhile is accepted for
    /// up to that long.
    pub fn introspection_cache(mut self, lifetime: Duration) -> Self {
        if let Verifier::Introspection { answers, .. } = &mut self.verifier {
            answers.set_lifetime(lifetime);
        }
        self
    }

    /// The algorithms a JWT may be signed with; HMAC algorithms are dropped (see
    /// [`DEFAULT_ALGORITHMS`]).
    pub fn algorithms(mut self, allowed: impl IntoIterator<Item = Algorithm>) -> Self {
        if let Verifier::Jwt { algorithms, .. } = &mut self.verifier {
            *algorithms = allowed
                .into_iter()
                .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
                .collect();
        }
        self
    }

    /// The URL of the metadata document.
    fn metadata_url(&self) -> String {
        resource_metadata_urls(&self.resource_url).remove(0).to_string()
    }

    /// A `401`: the token is missing (no error code, RFC 6750 §3.1) or not valid.
    fn unauthorized(&self, error: Option<&str>, description: &str) -> Denial {
        let mut challenge = Challenge::new("Bearer");
        if let Some(error) = error {
            challenge = challenge.param("error", error).param("error_description", description);
        }
        challenge = challenge.param("resource_metadata", self.metadata_url());
        if !self.scopes_supported.is_empty() {
            challenge = challenge.param("scope", self.scopes_supported.join(" "));
        }
        Denial {
            status: 401,
            challenge: challenge.to_string(),
            error: error.unwrap_or("invalid_token").to_owned(),
            description: description.to_owned(),
            dpop_nonce: None,
        }
    }

    fn invalid(&self, description: impl Into<String>) -> Denial {
        self.unauthorized(Some("invalid_token"), &description.into())
    }

    /// Verifies a request's credentials into its principal.
    async fn verify(&self, request: RequestHead<'_>) -> Result<Principal, Denial> {
        if request
            .uri
            .query()
            .is_some_and(|q| url::form_urlencoded::parse(q.as_bytes()).any(|(k, _)| k == "access_token"))
        {
            let mut denial = self.unauthorized(
                Some("invalid_request"),
                "access tokens go in the Authorization header, never in the URL",
            );
            denial.status = 400;
            return Err(denial);
        }
        let Some(authorization) = request.headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
            return Err(self.unauthorized(None, "this endpoint needs an access token"));
        };
        let Some((scheme, token)) = authorization.split_once(' ') else {
            return Err(self.invalid("the Authorization header is not \"Bearer TOKEN\""));
        };
        let token = token.trim();
        let dpop_scheme = scheme.eq_ignore_ascii_case("DPoP");
        if !dpop_scheme && !scheme.eq_ignore_ascii_case("Bearer") {
            return Err(self.invalid(format!("the {scheme} scheme is not accepted: use Bearer")));
        }
        let claims = match &self.verifier {
            Verifier::Jwt { keys, algorithms } => self.verify_jwt(token, keys, algorithms).await?,
            Verifier::Introspection { endpoint, client_id, client_secret, answers } => {
                match answers.get(token) {
                    Some(claims) => claims,
                    None => {
                        let _call = answers.call().await;
                        let claims = self.introspect(token, endpoint, client_id, client_secret).await?;
                        answers.keep(token, &claims);
                        claims
                    }
                }
            }
        };
        let bound = claims.get("cnf").and_then(|c| c.get("jkt")).and_then(Value::as_str);
        match (bound, dpop_scheme) {
            (Some(jkt), true) => self.verify_proof(request, token, jkt).await?,
            (Some(_), false) => {
                return Err(self.invalid(
                    "the token is bound to a key (DPoP): send it with the DPoP scheme and a proof",
                ));
            }
            (None, true) => return Err(self.invalid("the DPoP scheme needs a token bound to a key")),
            (None, false) => {}
        }
        // Without a subject or a client, callers could not be told apart: they would share one
        // principal, and with it each other's sessions and tasks.
        let mut principal = principal(claims)
            .ok_or_else(|| self.invalid("the token names no subject (sub) or client (client_id, azp)"))?;
        self.expand(&mut principal.scopes);
        Ok(principal)
    }

    /// Adds to `scopes` every scope they include, transitively.
    fn expand(&self, scopes: &mut Vec<String>) {
        let mut next = 0;
        while next < scopes.len() {
            for included in self.implies.get(&scopes[next]).into_iter().flatten() {
                if !scopes.contains(included) {
                    scopes.push(included.clone());
                }
            }
            next += 1;
        }
    }

    async fn verify_jwt(
        &self,
        token: &str,
        keys: &KeySet,
        algorithms: &[Algorithm],
    ) -> Result<Map<String, Value>, Denial> {
        // `alg: none` and unknown algorithms fail to parse here.
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| self.invalid(format!("the token is not a JWT: {e}")))?;
        if !algorithms.contains(&header.alg) {
            return Err(self.invalid(format!("tokens signed with {:?} are not accepted", header.alg)));
        }
        let key = keys
            .key(&self.fetcher, header.kid.as_deref(), header.alg)
            .await
            .map_err(|why| self.invalid(why))?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = self.leeway.as_secs();
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map(|data| data.claims)
            .map_err(|e| self.invalid(format!("the token was refused: {}", jwt_failure(&e))))
    }

    async fn introspect(
        &self,
        token: &str,
        endpoint: &str,
        client_id: &str,
        client_secret: &Secret,
    ) -> Result<Map<String, Value>, Denial> {
        let url =
            Url::parse(endpoint).map_err(|e| self.invalid(format!("the introspection endpoint: {e}")))?;
        let mut headers = HeaderMap::new();
        let basic = base64::engine::general_purpose::STANDARD
            .encode(format!("{client_id}:{}", client_secret.expose()));
        if let Ok(value) = http::HeaderValue::try_from(format!("Basic {basic}")) {
            headers.insert(AUTHORIZATION, value);
        }
        let answer = self
            .fetcher
            .post_form(&url, &[("token", token), ("token_type_hint", "access_token")], headers)
            .await
            .map_err(|e| self.invalid(format!("the token could not be checked: {e}")))?;
        let claims: Map<String, Value> = serde_json::from_slice(&answer.body).unwrap_or_default();
        if !answer.status.is_success() || claims.get("active") != Some(&Value::Bool(true)) {
            return Err(self.invalid("the token is not active"));
        }
        let names_audience = match claims.get("aud") {
            Some(Value::String(aud)) => *aud == self.audience,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(&self.audience)),
            _ => false,
        };
        if !names_audience {
            return Err(self.invalid("the token was not issued for this resource"));
        }
        if claims.get("iss").and_then(Value::as_str).is_some_and(|iss| iss != self.issuer) {
            return Err(self.invalid("the token was issued by another authorization server"));
        }
        let expired = claims
            .get("exp")
            .and_then(Value::as_u64)
            .is_some_and(|exp| exp + self.leeway.as_secs() < unix_now());
        if expired {
            return Err(self.invalid("the token has expired"));
        }
        Ok(claims)
    }

    /// RFC 9449 §4.3: the proof is a JWT of type `dpop+jwt`, signed by the public key in its
    /// header, whose thumbprint the token names; it is for this method and URL, for this
    /// token (`ath`), recent, and never seen before.
    async fn verify_proof(&self, request: RequestHead<'_>, token: &str, jkt: &str) -> Result<(), Denial> {
        let mut proofs = request.headers.get_all("dpop").iter();
        let (Some(proof), None) = (proofs.next(), proofs.next()) else {
            return Err(self.invalid("a DPoP-bound token needs exactly one DPoP proof"));
        };
        let proof = proof.to_str().map_err(|_| self.invalid("the DPoP proof is not text"))?;
        let header =
            jsonwebtoken::decode_header(proof).map_err(|e| self.invalid(format!("the DPoP proof: {e}")))?;
        if header.typ.as_deref() != Some("dpop+jwt")
            || matches!(header.alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
        {
            return Err(self.invalid("the DPoP proof must be an asymmetrically signed dpop+jwt"));
        }
        let jwk = header.jwk.as_ref().ok_or_else(|| self.invalid("the DPoP proof carries no key"))?;
        if jwk.thumbprint(ThumbprintHash::SHA256).ok().as_deref() != Some(jkt) {
            return Err(self.invalid("the DPoP proof is signed by a key the token is not bound to"));
        }
        let key =
            DecodingKey::from_jwk(jwk).map_err(|e| self.invalid(format!("the DPoP proof's key: {e}")))?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_aud = false;
        let claims = jsonwebtoken::decode::<Map<String, Value>>(proof, &key, &validation)
            .map_err(|e| self.invalid(format!("the DPoP proof: {}", jwt_failure(&e))))?
            .claims;
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        if text("htm") != Some(request.method.as_str()) {
            return Err(self.invalid("the DPoP proof is for another method"));
        }
        let htu = text("htu").and_then(|u| Url::parse(u).ok()).map(|u| canonical_resource(&u));
        if htu.as_deref() != Some(self.resource.as_str()) {
            return Err(self.invalid("the DPoP proof is for another URL"));
        }
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
        if text("ath") != Some(ath.as_str()) {
            return Err(self.invalid("the DPoP proof is for another access token"));
        }
        let iat = claims.get("iat").and_then(Value::as_u64).unwrap_or_default();
        let now = unix_now();
        let window = self.proof_lifetime.as_secs() + self.leeway.as_secs();
        // Saturating: an `iat` near the end of time must be refused, not overflow.
        if iat.saturating_add(window) < now || iat > now.saturating_add(self.leeway.as_secs()) {
            return Err(self.invalid("the DPoP proof is too old or from the future"));
        }
        let jti = text("jti").ok_or_else(|| self.invalid("the DPoP proof has no jti"))?;
        match self.replay.claim(&format!("dpop-jti:{jti}"), Duration::from_secs(window)).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.invalid("the DPoP proof was used before")),
            Err(e) => {
                Err(self
                    .invalid(format!("the DPoP proof could not be checked for replay ({e}); send a new one")))
            }
        }
    }
}

/// Why a JWT was refused, in words.
fn jwt_failure(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "it has expired".into(),
        ErrorKind::ImmatureSignature => "it is not valid yet".into(),
        ErrorKind::InvalidAudience => "it was not issued for this resource".into(),
        ErrorKind::InvalidIssuer => "it was issued by another authorization server".into(),
        ErrorKind::InvalidSignature => "its signature does not verify".into(),
        ErrorKind::InvalidAlgorithm => "its algorithm does not fit the key".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("it has no {claim} claim"),
        other => format!("{other:?}"),
    }
}

/// The principal of verified claims.
/// The caller `claims` name: its subject, else its client; `None` when they name neither.
fn principal(claims: Map<String, Value>) -> Option<Principal> {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => split_scopes(scope),
        (None, Some(Value::Array(scopes))) => {
            scopes.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        _ => Vec::new(),
    };
    let client_id = text("client_id").or_else(|| text("azp"));
    let subject = text("sub").or_else(|| client_id.clone()).filter(|subject| !subject.is_empty())?;
    Some(Principal::new(text("iss"), subject, scopes).with_client(client_id).with_claims(claims))
}

impl Authenticator for ResourceServer {
    fn metadata_paths(&self) -> Vec<String> {
        resource_metadata_urls(&self.resource_url).into_iter().take(1).map(|u| u.path().to_owned()).collect()
    }

    fn metadata(&self) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
            "dpop_signing_alg_values_supported": ["ES256", "ES384", "RS256", "PS256"],
        });
        if !self.scopes_supported.is_empty() {
            document["scopes_supported"] = json!(self.scopes_supported);
        }
        document
    }

    fn authenticate<'a>(&'a self, request: RequestHead<'a>) -> BoxFuture<'a, Result<Principal, Denial>> {
        Box::pin(self.verify(request))
    }

    fn insufficient_scope(&self, needed: &[String]) -> Denial {
        let description = format!("this needs the scope {}", needed.join(" "));
        let challenge = Challenge::new("Bearer")
            .param("error", "insufficient_scope")
            .param("scope", needed.join(" "))
            .param("resource_metadata", self.metadata_url())
            .param("error_description", &description);
        Denial {
            status: 403,
            challenge: challenge.to_string(),
            error: "insufficient_scope".into(),
            description,
            dpop_nonce: None,
        }
    }
}
