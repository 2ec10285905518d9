//! [`OAuth`]: the OAuth 2.1 client of one MCP server, plugged into the HTTP client as its
//! [`HttpAuth`]. It sets the token on every request and, when the server refuses one,
//! discovers, registers, authorizes, refreshes or steps up, then lets the request go again.

use std::collections::HashMap;

use futures::future::BoxFuture;
use reqwest::Url;
use reqwest::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use tokio::sync::Mutex;

use super::challenge::{self, Challenge};
use super::discovery::{self, Discovered};
use super::dpop::DpopKey;
use super::fetch::Fetcher;
use super::metadata::{ServerMetadata, canonical_resource};
use super::options::{Grant, OAuthOptions};
use super::pkce::{self, Pkce};
use super::registration::client_for;
use super::store::{IssuerCredentials, RegisteredClient, Secret, TokenSet};
use super::token::{Nonce, TokenEndpoint};
use super::{AuthError, UserAgent};
use crate::client::{ClientError, HttpAuth, Refusal, authorization_value};

/// The OAuth client of one MCP server. Set it as
/// [`ClientOptions::auth`](crate::client::ClientOptions::auth).
pub struct OAuth {
    server: Url,
    /// The server's canonical URI: the key of its tokens in the store.
    key: String,
    options: OAuthOptions,
    fetcher: Fetcher,
    state: Mutex<State>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").field("server", &self.key).finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct State {
    /// Whether the store was asked for tokens yet.
    loaded: bool,
    current: Option<Current>,
    /// Every scope asked for so far, in order (AUTH-18: re-authorization asks for the union).
    requested: Vec<String>,
    step_ups: usize,
    /// The resource server's DPoP nonce, and the authorization server's.
    rs_nonce: Nonce,
    as_nonce: Nonce,
    dpop: Option<DpopKey>,
}

#[derive(Debug)]
struct Current {
    issuer: String,
    tokens: TokenSet,
    /// What discovery found, when this process did it (tokens from the store have none yet).
    found: Option<Discovered>,
}

impl OAuth {
    /// The OAuth client of the MCP server at `server`.
    pub fn new(server: &str, options: OAuthOptions) -> Result<Self, AuthError> {
        let server =
            Url::parse(server).map_err(|e| AuthError::Config(format!("the server URL {server:?}: {e}")))?;
        let fetcher = Fetcher::new(options.fetch)?.observed(options.observer.clone());
        Ok(Self { key: canonical_resource(&server), server, options, fetcher, state: Mutex::default() })
    }

    /// Authorizes now, before the client sends anything: asks the server for its challenge
    /// (a `ping` without credentials) and, when it refuses, discovers its authorization
    /// server and runs the grant. `Ok(false)` when the server asks for no authorization.
    /// A person approving in a browser takes longer than a request's time limit: call this
    /// before connecting.
    pub async fn login(&self) -> Result<bool, AuthError> {
        let ping = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": modelctx_protocol::Method::Ping});
        let answer =
            self.fetcher.post_json(&self.server, &ping, "application/json, text/event-stream").await?;
        if !matches!(answer.status.as_u16(), 401 | 403) {
            return Ok(false);
        }
        let challenges =
            challenge::parse(answer.headers.get_all(WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()));
        let challenge = challenges.iter().find(|c| c.is("Bearer") || c.is("DPoP"));
        let mut state = self.state.lock().await;
        state.loaded = true;
        self.obtain(&mut state, challenge, None).await?;
        Ok(true)
    }

    /// Forgets the tokens of this server, here and in the store.
    pub async fn forget(&self) -> Result<(), AuthError> {
        let mut state = self.state.lock().await;
        state.current = None;
        state.loaded = true;
        if let Some(issuer) = self.options.store.issuer_for(&self.key).await? {
            let mut kept = self.options.store.get(&issuer).await?.unwrap_or_default();
            kept.tokens.remove(&self.key);
            self.options.store.put(&issuer, kept).await?;
        }
        Ok(())
    }

    /// The scopes of the tokens in use, when there are tokens.
    pub async fn scopes(&self) -> Option<Vec<String>> {
        self.state.lock().await.current.as_ref().map(|current| current.tokens.scopes.clone())
    }

    /// Takes the tokens kept for this server, once.
    async fn load(&self, state: &mut State) -> Result<(), AuthError> {
        state.loaded = true;
        let store = &self.options.store;
        let Some(issuer) = store.issuer_for(&self.key).await? else { return Ok(()) };
        let Some(tokens) = store.get(&issuer).await?.and_then(|mut kept| kept.tokens.remove(&self.key))
        else {
            return Ok(());
        };
        if let Some(key) = &tokens.dpop_key {
            state.dpop = Some(DpopKey::from_pkcs8(key.expose())?);
        }
        state.requested = tokens.scopes.clone();
        state.current = Some(Current { issuer, tokens, found: None });
        Ok(())
    }

    /// Keeps `current`'s tokens (and a new client registration) under its issuer.
    async fn save(&self, current: &Current, client: Option<RegisteredClient>) -> Result<(), AuthError> {
        let store = &self.options.store;
        let mut kept: IssuerCredentials = store.get(&current.issuer).await?.unwrap_or_default();
        kept.tokens.insert(self.key.clone(), current.tokens.clone());
        if client.is_some() {
            kept.client = client;
        }
        store.put(&current.issuer, kept).await
    }

    /// Gets new tokens after a refusal: discovery from the challenge, then a refresh when the
    /// authorization server is the same and more scope is not needed, else the grant.
    async fn obtain(
        &self,
        state: &mut State,
        challenge: Option<&Challenge>,
        scopes: Option<Vec<String>>,
    ) -> Result<(), AuthError> {
        let found = discovery::discover(
            &self.fetcher,
            &self.server,
            challenge.and_then(Challenge::resource_metadata),
        )
        .await?;
        let same_server = state.current.as_ref().is_some_and(|c| c.issuer == found.issuer);
        if scopes.is_none() && same_server {
            match self.refresh(state, &found).await {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => tracing::debug!(error = %e, "the refresh failed; authorizing again"),
            }
        }
        let scopes = match scopes {
            Some(scopes) => scopes,
            None => {
                let mut scopes = first_scopes(challenge, &found);
                union_into(&mut scopes, &self.options.scopes);
                union_into(&mut scopes, &state.requested);
                scopes
            }
        };
        let (tokens, client) = self.grant(state, &found, &scopes).await?;
        union_into(&mut state.requested, &scopes);
        let current = Current { issuer: found.issuer.clone(), tokens, found: Some(found) };
        self.save(&current, client).await?;
        state.current = Some(current);
        Ok(())
    }

    /// Refreshes the tokens in use, when they have a refresh token: `Ok(false)` when not.
    async fn refresh(&self, state: &mut State, found: &Discovered) -> Result<bool, AuthError> {
        let Some(current) = &state.current else { return Ok(false) };
        let Some(refresh_token) = current.tokens.refresh_token.clone() else { return Ok(false) };
        let resource = current.tokens.resource.clone().unwrap_or_else(|| found.resource.clone());
        let scopes = current.tokens.scopes.clone();
        let kept = self.options.store.get(&found.issuer).await?.and_then(|k| k.client);
        let client = self.client_for_grant(&found.issuer, &found.metadata, kept.as_ref(), None).await?.0;
        let dpop = state.dpop.clone().filter(|_| current.tokens.dpop_key.is_some());
        let endpoint = self.endpoint(&found.issuer, &found.metadata, Some(&client), dpop.as_ref());
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token.expose()),
            ("resource", &resource),
        ];
        let mut tokens = endpoint.request(&form, &scopes, &mut state.as_nonce).await?;
        tokens.refresh_token = tokens.refresh_token.or(Some(refresh_token));
        bind(&mut tokens, resource, dpop);
        let current = Current { issuer: found.issuer.clone(), tokens, found: Some(found.clone()) };
        self.save(&current, None).await?;
        state.current = Some(current);
        Ok(true)
    }

    /// Refreshes before sending when the token is about to expire.
    async fn refresh_if_expiring(&self, state: &mut State) {
        let Some(current) = &state.current else { return };
        if current.tokens.refresh_token.is_none()
            || !current.tokens.expires_within(self.options.refresh_margin)
        {
            return;
        }
        let found = match &current.found {
            Some(found) => Ok(found.clone()),
            None => discovery::discover(&self.fetcher, &self.server, None).await,
        };
        let refreshed = match found {
            Ok(found) => self.refresh(state, &found).await.map(|_| ()),
            Err(e) => Err(e),
        };
        if let Err(e) = refreshed {
            // The server answers the old token with 401, and the refusal starts over.
            tracing::debug!(error = %e, "refreshing an expiring token failed");
        }
    }

    /// Runs the configured grant at the discovered authorization server.
    async fn grant(
        &self,
        state: &mut State,
        found: &Discovered,
        scopes: &[String],
    ) -> Result<(TokenSet, Option<RegisteredClient>), AuthError> {
        let metadata = &found.metadata;
        let dpop = if self.options.dpop
            && metadata
                .dpop_signing_alg_values_supported
                .as_ref()
                .is_some_and(|algs| algs.iter().any(|a| a == "ES256"))
        {
            if state.dpop.is_none() {
                state.dpop = Some(DpopKey::generate()?);
            }
            state.dpop.clone()
        } else {
            None
        };
        let resource = found.resource.as_str();
        let scope = scopes.join(" ");
        let kept = self.options.store.get(&found.issuer).await?.and_then(|k| k.client);
        let (mut tokens, new_client) = match &self.options.grant {
            Grant::AuthorizationCode(agent) => {
                let mut scopes = scopes.to_vec();
                if self.options.offline_access && metadata.lists_scope("offline_access") {
                    union_into(&mut scopes, &["offline_access".to_owned()]);
                }
                let redirect_uri = agent.redirect_uri();
                let (client, new) = self
                    .client_for_grant(&found.issuer, metadata, kept.as_ref(), Some(&redirect_uri))
                    .await?;
                let code = self.authorization_code(agent.as_ref(), found, &client, &scopes).await?;
                let endpoint = self.endpoint(&found.issuer, metadata, Some(&client), dpop.as_ref());
                let form = [
                    ("grant_type", "authorization_code"),
                    ("code", code.code.expose()),
                    ("redirect_uri", &redirect_uri),
                    ("code_verifier", code.pkce.verifier.as_str()),
                    ("resource", resource),
                ];
                (endpoint.request(&form, &scopes, &mut state.as_nonce).await?, new.then_some(client))
            }
            Grant::ClientCredentials => {
                let (client, _) = self.client_for_grant(&found.issuer, metadata, kept.as_ref(), None).await?;
                let endpoint = self.endpoint(&found.issuer, metadata, Some(&client), dpop.as_ref());
                let mut form = vec![("grant_type", "client_credentials"), ("resource", resource)];
                with_scope(&mut form, &scope);
                (endpoint.request(&form, scopes, &mut state.as_nonce).await?, None)
            }
            Grant::JwtBearer(assertion) => {
                let assertion = assertion.read().await?;
                let client = self.options.client.as_ref().map(|c| RegisteredClient {
                    client_id: c.client_id.clone(),
                    client_secret: c.client_secret.clone(),
                    auth_method: None,
                    redirect_uris: Vec::new(),
                });
                let endpoint = self.endpoint(&found.issuer, metadata, client.as_ref(), dpop.as_ref());
                let mut form = vec![
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                    ("assertion", assertion.expose()),
                    ("resource", resource),
                ];
                with_scope(&mut form, &scope);
                (endpoint.request(&form, scopes, &mut state.as_nonce).await?, None)
            }
            Grant::EnterpriseManaged { idp_token_endpoint, id_token, idp_client_id, idp_client_secret } => {
                let id_jag = self
                    .identity_assertion(
                        found,
                        idp_token_endpoint,
                        id_token,
                        idp_client_id,
                        idp_client_secret,
                        &scope,
                    )
                    .await?;
                let (client, _) = self.client_for_grant(&found.issuer, metadata, kept.as_ref(), None).await?;
                let endpoint = self.endpoint(&found.issuer, metadata, Some(&client), dpop.as_ref());
                let mut form = vec![
                    ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                    ("assertion", id_jag.expose()),
                    ("resource", resource),
                ];
                with_scope(&mut form, &scope);
                (endpoint.request(&form, scopes, &mut state.as_nonce).await?, None)
            }
        };
        bind(&mut tokens, found.resource.clone(), dpop);
        Ok((tokens, new_client))
    }

    async fn client_for_grant(
        &self,
        issuer: &str,
        metadata: &ServerMetadata,
        kept: Option<&RegisteredClient>,
        redirect_uri: Option<&str>,
    ) -> Result<(RegisteredClient, bool), AuthError> {
        client_for(&self.options, &self.fetcher, issuer, metadata, kept, redirect_uri).await
    }

    fn endpoint<'a>(
        &'a self,
        issuer: &'a str,
        metadata: &'a ServerMetadata,
        client: Option<&'a RegisteredClient>,
        dpop: Option<&'a DpopKey>,
    ) -> TokenEndpoint<'a> {
        TokenEndpoint {
            fetcher: &self.fetcher,
            issuer,
            metadata,
            client,
            signing_key: self.options.client.as_ref().and_then(|c| c.signing_key.as_ref()),
            dpop,
        }
    }

    /// The authorization request, through the user agent, and the checks of its answer
    /// (RFC 9207 `iss` first, then `state`, then the code or the error).
    async fn authorization_code(
        &self,
        agent: &dyn UserAgent,
        found: &Discovered,
        client: &RegisteredClient,
        scopes: &[String],
    ) -> Result<Code, AuthError> {
        let metadata = &found.metadata;
        if !metadata.supports_s256() {
            return Err(AuthError::Refused(format!(
                "the authorization server {} does not offer PKCE with S256 (AUTH-28)",
                found.issuer
            )));
        }
        let endpoint = metadata.authorization_endpoint.as_deref().ok_or_else(|| {
            AuthError::Discovery(format!(
                "the authorization server {} names no authorization endpoint",
                found.issuer
            ))
        })?;
        let mut url = Url::parse(endpoint).map_err(|e| {
            AuthError::Discovery(format!("the authorization endpoint {endpoint} is not a URL: {e}"))
        })?;
        // SEC-03: the user agent opens this URL; only `https` (or `http` to loopback when
        // allowed), never `javascript:`, `data:`, `file:` and the like.
        self.fetcher.check(&url)?;
        let pkce = Pkce::new()?;
        let state = pkce::random_string()?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.client_id)
                .append_pair("redirect_uri", &agent.redirect_uri())
                .append_pair("state", &state)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", &found.resource);
            if !scopes.is_empty() {
                query.append_pair("scope", &scopes.join(" "));
            }
        }
        let callback = agent.authorize(&url, &self.fetcher).await?;
        let answer: HashMap<String, String> = callback.query_pairs().into_owned().collect();
        // RFC 9207 §2.4, by simple string comparison, before anything else of the answer is
        // looked at (AUTH-32/33/34).
        match (answer.get("iss"), metadata.authorization_response_iss_parameter_supported == Some(true)) {
            (Some(iss), _) if *iss != metadata.issuer => {
                return Err(AuthError::Refused(format!(
                    "the authorization response names the issuer {iss}, not {}: it is ignored",
                    metadata.issuer
                )));
            }
            (None, true) => {
                return Err(AuthError::Refused(format!(
                    "the authorization server {} promises iss in its responses, and this one has none",
                    metadata.issuer
                )));
            }
            _ => {}
        }
        if answer.get("state") != Some(&state) {
            return Err(AuthError::Refused("the authorization response's state is not the one sent".into()));
        }
        if let Some(error) = answer.get("error") {
            return Err(AuthError::Denied {
                error: error.clone(),
                description: answer.get("error_description").cloned(),
            });
        }
        let code = answer
            .get("code")
            .ok_or_else(|| AuthError::Refused("the authorization response carries no code".into()))?;
        Ok(Code { code: Secret::new(code.clone()), pkce })
    }

    /// Enterprise-managed authorization's first step: the identity provider exchanges the
    /// user's ID token for an ID-JAG naming this authorization server and resource.
    async fn identity_assertion(
        &self,
        found: &Discovered,
        idp_token_endpoint: &str,
        id_token: &super::Assertion,
        idp_client_id: &Option<String>,
        idp_client_secret: &Option<Secret>,
        scope: &str,
    ) -> Result<Secret, AuthError> {
        let id_token = id_token.read().await?;
        let idp = ServerMetadata {
            issuer: idp_token_endpoint.to_owned(),
            token_endpoint: Some(idp_token_endpoint.to_owned()),
            ..ServerMetadata::default()
        };
        let client = idp_client_id.as_ref().map(|id| RegisteredClient {
            client_id: id.clone(),
            client_secret: idp_client_secret.clone(),
            auth_method: Some(
                if idp_client_secret.is_some() { "client_secret_basic" } else { "none" }.into(),
            ),
            redirect_uris: Vec::new(),
        });
        let endpoint = TokenEndpoint {
            fetcher: &self.fetcher,
            issuer: &idp.issuer,
            metadata: &idp,
            client: client.as_ref(),
            signing_key: None,
            dpop: None,
        };
        let mut form = vec![
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
            ("subject_token", id_token.expose()),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
            ("audience", &found.issuer),
            ("resource", &found.resource),
        ];
        with_scope(&mut form, scope);
        Ok(endpoint.request(&form, &[], &mut None).await?.access_token)
    }

    /// Acts on a refusal; see [`HttpAuth::refused`].
    async fn on_refusal(&self, refusal: Refusal<'_>) -> Result<bool, AuthError> {
        let challenges = challenge::parse(
            refusal.headers.get_all(WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()),
        );
        let mut state = self.state.lock().await;
        if refusal.status == reqwest::StatusCode::UNAUTHORIZED
            && challenges.iter().any(|c| c.error() == Some("use_dpop_nonce"))
            && let Some(nonce) = refusal.headers.get("DPoP-Nonce").and_then(|v| v.to_str().ok())
        {
            state.rs_nonce = Some(nonce.to_owned());
            return Ok(true);
        }
        // Another request got new tokens since this one was sent: send it with them.
        if let Some(current) = &state.current
            && refusal.sent.and_then(|sent| sent.split_once(' ')).map(|(_, token)| token)
                != Some(current.tokens.access_token.expose())
        {
            return Ok(true);
        }
        let challenge = challenges.iter().find(|c| c.is("Bearer") || c.is("DPoP"));
        if refusal.status == reqwest::StatusCode::FORBIDDEN {
            let Some(challenge) = challenge.filter(|c| c.error() == Some("insufficient_scope")) else {
                return Ok(false);
            };
            let needed = challenge.scopes();
            let mut held = state.requested.clone();
            if let Some(current) = &state.current {
                union_into(&mut held, &current.tokens.scopes);
            }
            if needed.iter().all(|scope| held.contains(scope)) || state.step_ups >= self.options.max_step_ups
            {
                return Ok(false);
            }
            state.step_ups += 1;
            let mut wanted = state.requested.clone();
            union_into(&mut wanted, &needed);
            self.obtain(&mut state, Some(challenge), Some(wanted)).await?;
            return Ok(true);
        }
        self.obtain(&mut state, challenge, None).await?;
        Ok(true)
    }
}

/// Records what `tokens` were asked for: the `resource`, and the DPoP key when the server
/// bound them to it (`token_type: DPoP`).
fn bind(tokens: &mut TokenSet, resource: String, dpop: Option<DpopKey>) {
    tokens.resource = Some(resource);
    tokens.dpop_key = dpop.filter(|_| tokens.token_type.eq_ignore_ascii_case("DPoP")).map(|k| k.to_pkcs8());
}

/// An authorization code and the verifier that redeems it.
struct Code {
    code: Secret,
    pkce: Pkce,
}

/// The scopes of a first authorization (AUTH-17): the challenge's, else all the resource
/// lists, else none.
fn first_scopes(challenge: Option<&Challenge>, found: &Discovered) -> Vec<String> {
    let challenged = challenge.map(Challenge::scopes).unwrap_or_default();
    if !challenged.is_empty() {
        return challenged;
    }
    found.resource_metadata.as_ref().and_then(|m| m.scopes_supported.clone()).unwrap_or_default()
}

/// Adds to `scopes` those of `more` it lacks, keeping the order.
fn union_into(scopes: &mut Vec<String>, more: &[String]) {
    for scope in more {
        if !scopes.contains(scope) {
            scopes.push(scope.clone());
        }
    }
}

fn with_scope<'a>(form: &mut Vec<(&'a str, &'a str)>, scope: &'a str) {
    if !scope.is_empty() {
        form.push(("scope", scope));
    }
}

impl HttpAuth for OAuth {
    fn authorize<'a>(&'a self, request: &'a mut reqwest::Request) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            let mut state = self.state.lock().await;
            if !state.loaded {
                self.load(&mut state).await.map_err(|e| ClientError::auth(e.to_string()))?;
            }
            self.refresh_if_expiring(&mut state).await;
            let Some(current) = &state.current else { return Ok(()) };
            let token = current.tokens.access_token.expose();
            let bound = state.dpop.as_ref().filter(|_| current.tokens.dpop_key.is_some());
            let scheme = if bound.is_some() { "DPoP" } else { "Bearer" };
            request.headers_mut().insert(AUTHORIZATION, authorization_value(scheme, token)?);
            if let Some(key) = bound {
                let proof = key
                    .proof(request.method().as_str(), request.url(), Some(token), state.rs_nonce.as_deref())
                    .map_err(|e| ClientError::auth(e.to_string()))?;
                let proof = reqwest::header::HeaderValue::try_from(proof)
                    .map_err(|_| ClientError::auth("a DPoP proof a header cannot carry"))?;
                request.headers_mut().insert("DPoP", proof);
            }
            Ok(())
        })
    }

    fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async move { self.on_refusal(refusal).await.map_err(|e| ClientError::auth(e.to_string())) })
    }
}
