//! Credentials for HTTP servers: an [`HttpAuth`] sets the credentials of every request
//! (`Authorization: Bearer …`, or a DPoP-bound token and its proof) and hears when the server
//! refuses one (`401`, `403`), so that an OAuth flow (`modelctx::auth::OAuth`, feature
//! `auth`) or any token source can act before the request is sent once more.

use std::fmt;

use futures::future::BoxFuture;
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};

use super::ClientError;

/// How many times one request is sent again after a refusal its [`HttpAuth`] acted on.
pub(super) const MAX_AUTH_RETRIES: usize = 3;

/// A server's refusal of a request, as the [`HttpAuth`] sees it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Refusal<'a> {
    /// `401 Unauthorized` or `403 Forbidden`.
    pub status: StatusCode,
    /// The answer's headers (`WWW-Authenticate`, `DPoP-Nonce`).
    pub headers: &'a HeaderMap,
    /// The `Authorization` header the refused request carried, if any: a source that has a
    /// newer token since can send that without asking anyone.
    pub sent: Option<&'a str>,
}

/// Supplies the credentials of an HTTP connection. Set it in
/// [`ClientOptions::auth`](super::ClientOptions::auth).
pub trait HttpAuth: Send + Sync + fmt::Debug {
    /// Sets the credentials of `request`, about to be sent.
    fn authorize<'a>(&'a self, request: &'a mut reqwest::Request) -> BoxFuture<'a, Result<(), ClientError>>;

    /// The server refused a request. Return `Ok(true)` once the credentials are fixed: the
    /// request is authorized and sent again (at most a few times). `Ok(false)` gives up, and
    /// the refusal is the request's error; `Err` says why authorization failed. The default
    /// gives up.
    fn refused<'a>(&'a self, refusal: Refusal<'a>) -> BoxFuture<'a, Result<bool, ClientError>> {
        let _ = refusal;
        Box::pin(async { Ok(false) })
    }
}

/// A token that never changes (an API key, a token from the environment).
#[derive(Clone)]
pub struct StaticBearer(String);

impl StaticBearer {
    /// Sends `token` with every request.
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }
}

impl fmt::Debug for StaticBearer {
    /// Never shows the token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StaticBearer(..)")
    }
}

impl HttpAuth for StaticBearer {
    fn authorize<'a>(&'a self, request: &'a mut reqwest::Request) -> BoxFuture<'a, Result<(), ClientError>> {
        let set = authorization_value("Bearer", &self.0).map(|value| {
            request.headers_mut().insert(AUTHORIZATION, value);
        });
        Box::pin(async move { set })
    }
}

/// The `Authorization` header value that carries `token` with `scheme` (`Bearer`, `DPoP`),
/// marked sensitive so that no log shows it.
pub fn authorization_value(scheme: &str, token: &str) -> Result<HeaderValue, ClientError> {
    let mut value = HeaderValue::try_from(format!("{scheme} {token}"))
        .map_err(|_| ClientError::invalid_params("the access token has characters a header cannot carry"))?;
    value.set_sensitive(true);
    Ok(value)
}
