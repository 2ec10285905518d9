//! Authorization for HTTP servers (feature `auth`): an OAuth 2.1 client that finds the
//! authorization server of an MCP server, gets a token and keeps it fresh, as the MCP
//! specification's authorization chapter and its extensions describe.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use modelctx::auth::{OAuth, OAuthOptions, LoopbackBrowser};
//! use modelctx::client::{Client, ClientOptions};
//! use modelctx::protocol::types::Implementation;
//!
//! let url = "https://mcp.example.com/mcp";
//! let browser = LoopbackBrowser::bind().await?;
//! let oauth = OAuth::new(url, OAuthOptions::authorization_code(Arc::new(browser)))?;
//! let mut options = ClientOptions::new(Implementation::new("my-host", "1.0"));
//! options.auth = Some(Arc::new(oauth));
//! let client = Client::connect_http(url, Default::default(), options).await?;
//! # drop(client); Ok(()) }
//! ```
//!
//! What it does, in order, when the server answers `401`:
//! 1. reads the `WWW-Authenticate` challenge (`resource_metadata`, `scope`);
//! 2. fetches the protected resource metadata (RFC 9728) from the challenge's URL, or from the
//!    well-known URLs, and checks that it names this server;
//! 3. fetches the authorization server's metadata (RFC 8414, then OpenID Connect Discovery)
//!    and checks its `issuer`;
//! 4. takes a client identity for that issuer: a pre-registered one, a Client ID Metadata
//!    Document URL, one registered before and kept, or a dynamic registration (RFC 7591);
//! 5. gets a token: authorization code with PKCE `S256` through a [`UserAgent`] (checking
//!    `state` and `iss`, RFC 9207), client credentials, a JWT bearer assertion (workload
//!    identity), or an enterprise identity provider's ID-JAG; every request names the
//!    `resource` (RFC 8707); proofs of possession (DPoP, RFC 9449) when the server offers it;
//! 6. keeps the tokens in a [`CredentialStore`] keyed by issuer and refreshes them;
//! 7. on `403 insufficient_scope`, asks again for the union of the scopes (step-up), a bounded
//!    number of times.
//!
//! Every URL a server or a metadata document names is fetched by [`Fetcher`]: `https` only
//! (plain `http` to a loopback host only when loopback is allowed), no redirects, public
//! addresses only unless told otherwise, bounded in bytes and time. No token, code, verifier
//! or secret is ever written to a log.
//!
//! The server's side is [`ResourceServer`], the `Authenticator` of an HTTP endpoint
//! (`HttpOptions::authenticator`): it verifies each request's token (a JWT against the
//! authorization server's keys, or by introspection), serves the protected resource metadata,
//! and puts the caller in `RequestContext::principal`; the scopes a definition requires
//! (`ToolDef::scopes`) are answered `403 insufficient_scope`.

mod agent;
pub mod challenge;
mod discovery;
mod dpop;
mod fetch;
mod introspected;
mod keyset;
pub mod metadata;
mod oauth;
mod options;
pub mod pkce;
mod registration;
mod resource;
pub mod store;
mod token;

use std::fmt;

pub use agent::{Headless, LoopbackBrowser, UserAgent};
pub use challenge::Challenge;
pub use dpop::DpopKey;
pub use fetch::{Exchange, FetchLimits, FetchObserver, Fetched, Fetcher};
pub use keyset::Keys;
pub use metadata::{ResourceMetadata, ServerMetadata};
pub use oauth::OAuth;
pub use options::{ApplicationType, Assertion, Grant, OAuthOptions, SigningKey, StaticClient};
pub use resource::{DEFAULT_ALGORITHMS, ResourceServer};
pub use store::{CredentialStore, FileStore, MemoryStore, Secret, TokenSet};

/// Why authorization failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// A metadata document could not be found or read.
    Discovery(String),
    /// Something a server sent failed a security check (a resource or issuer that does not
    /// match, no PKCE `S256`, a `state` or `iss` that is not the one expected): nothing more
    /// was sent.
    Refused(String),
    /// The authorization server said no (`error` and `error_description` of its answer).
    Denied {
        /// The OAuth error code.
        error: String,
        /// What the server said of it, when it said.
        description: Option<String>,
    },
    /// No client identity could be had at the authorization server.
    Registration(String),
    /// The HTTP exchange with a metadata, registration or token endpoint failed.
    Http(String),
    /// The credential store failed.
    Store(String),
    /// The options cannot work (a key that does not parse, a redirect URI that is not a URL).
    Config(String),
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Discovery(why) => write!(f, "authorization discovery failed: {why}"),
            Self::Refused(why) => write!(f, "authorization refused: {why}"),
            Self::Denied { error, description: Some(description) } => {
                write!(f, "the authorization server answered {error}: {description}")
            }
            Self::Denied { error, description: None } => {
                write!(f, "the authorization server answered {error}")
            }
            Self::Registration(why) => write!(f, "client registration failed: {why}"),
            Self::Http(why) => write!(f, "{why}"),
            Self::Store(why) => write!(f, "credential store: {why}"),
            Self::Config(why) => write!(f, "authorization options: {why}"),
        }
    }
}

impl std::error::Error for AuthError {}
