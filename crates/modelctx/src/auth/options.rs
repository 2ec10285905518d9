//! How an [`OAuth`](super::OAuth) client gets its tokens, and with what identity.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::fetch::{FetchLimits, FetchObserver};
use super::store::{CredentialStore, MemoryStore, Secret};
use super::{AuthError, UserAgent};

/// How tokens are obtained.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Grant {
    /// Authorization code with PKCE: a person approves in a browser (the [`UserAgent`]).
    AuthorizationCode(Arc<dyn UserAgent>),
    /// Client credentials: the client acts on its own behalf, authenticated by the secret or
    /// key of its [`StaticClient`] (the OAuth client credentials extension).
    ClientCredentials,
    /// A JWT bearer assertion (RFC 7523) the workload's platform issued: workload identity
    /// federation.
    JwtBearer(Assertion),
    /// Enterprise-managed authorization: the user's identity provider exchanges their ID
    /// token for an identity assertion grant (ID-JAG, RFC 8693), which the authorization
    /// server takes as a JWT bearer grant. The client authenticates with its
    /// [`StaticClient`] at the authorization server.
    EnterpriseManaged {
        /// The identity provider's token endpoint.
        idp_token_endpoint: String,
        /// The user's ID token from the identity provider.
        id_token: Assertion,
        /// The client's identifier at the identity provider, when it needs one.
        idp_client_id: Option<String>,
        /// The client's secret at the identity provider, when it needs one.
        idp_client_secret: Option<Secret>,
    },
}

/// A JWT the client presents, as a value or a file re-read each time it is needed (a
/// projected service-account token is rotated in place).
#[derive(Clone, Debug)]
pub enum Assertion {
    /// The JWT itself.
    Value(Secret),
    /// A file that holds it.
    File(PathBuf),
}

impl Assertion {
    /// The JWT, read now.
    pub(crate) async fn read(&self) -> Result<Secret, AuthError> {
        match self {
            Self::Value(value) => Ok(value.clone()),
            Self::File(path) => tokio::fs::read_to_string(path)
                .await
                .map(|text| Secret::new(text.trim()))
                .map_err(|e| AuthError::Config(format!("cannot read the assertion {}: {e}", path.display()))),
        }
    }
}

/// A private key that signs `private_key_jwt` client assertions (RFC 7523 §2.2).
#[derive(Clone, Debug)]
pub struct SigningKey {
    /// The key, PEM (PKCS#8 for EC and Ed25519, PKCS#1 or PKCS#8 for RSA).
    pub pem: Secret,
    /// The JWS algorithm: `ES256`, `ES384`, `RS256`, `PS256`, `EdDSA`, ….
    pub algorithm: String,
}

/// A client registered beforehand (pre-registration): its identifier and how it
/// authenticates.
#[derive(Clone, Debug, Default)]
pub struct StaticClient {
    /// The client identifier.
    pub client_id: String,
    /// The client secret of a confidential client.
    pub client_secret: Option<Secret>,
    /// The key of a `private_key_jwt` client.
    pub signing_key: Option<SigningKey>,
    /// The issuer of the authorization server the client is registered with. When set, the
    /// client is never presented to another server, and a resource that names another is an
    /// error (AUTH-26); when unset, it is presented to whichever server the resource names.
    pub issuer: Option<String>,
}

/// The OAuth client's `application_type` at dynamic registration (AUTH-25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApplicationType {
    /// A desktop, mobile or command-line application, or one on `localhost`.
    #[default]
    Native,
    /// A web application served from a remote host.
    Web,
}

impl ApplicationType {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Web => "web",
        }
    }
}

/// Everything an [`OAuth`](super::OAuth) client is told.
#[derive(Clone, Debug)]
pub struct OAuthOptions {
    /// How tokens are obtained.
    pub grant: Grant,
    /// A pre-registered client, used first (AUTH-20).
    pub client: Option<StaticClient>,
    /// The HTTPS URL of this client's metadata document, used as its `client_id` where the
    /// authorization server supports Client ID Metadata Documents.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for besides those the server's challenge or metadata names.
    pub scopes: Vec<String>,
    /// The name sent at dynamic registration.
    pub client_name: String,
    /// The `application_type` sent at dynamic registration.
    pub application_type: ApplicationType,
    /// Where registrations and tokens are kept. Default: in memory.
    pub store: Arc<dyn CredentialStore>,
    /// The bounds of every authorization request.
    pub fetch: FetchLimits,
    /// Whether to bind tokens to a key (DPoP) when the authorization server offers `ES256`
    /// proofs. Default true.
    pub dpop: bool,
    /// Whether to ask for `offline_access` (a refresh token) when the authorization server
    /// lists it. Default true.
    pub offline_access: bool,
    /// How many times one connection asks again for more scope after `403
    /// insufficient_scope` (AUTH-47). Default 2.
    pub max_step_ups: usize,
    /// How long before expiry a token is refreshed. Default 60 s.
    pub refresh_margin: Duration,
    /// Told of every HTTP exchange of authorization (challenge, documents, registration,
    /// tokens), to show its steps. Default none.
    pub observer: Option<FetchObserver>,
}

impl OAuthOptions {
    /// Options for `grant`, everything else default.
    pub fn new(grant: Grant) -> Self {
        Self {
            grant,
            client: None,
            client_metadata_url: None,
            scopes: Vec::new(),
            client_name: "modelctx".into(),
            application_type: ApplicationType::Native,
            store: Arc::new(MemoryStore::new()),
            fetch: FetchLimits::default(),
            dpop: true,
            offline_access: true,
            max_step_ups: 2,
            refresh_margin: Duration::from_secs(60),
            observer: None,
        }
    }

    /// Authorization code with PKCE, through `agent`.
    pub fn authorization_code(agent: Arc<dyn UserAgent>) -> Self {
        Self::new(Grant::AuthorizationCode(agent))
    }

    /// Client credentials for `client`.
    pub fn client_credentials(client: StaticClient) -> Self {
        Self { client: Some(client), ..Self::new(Grant::ClientCredentials) }
    }
}
