//! Bearer tokens for HTTP servers: a [`BearerAuth`] supplies the token every request carries
//! (`Authorization: Bearer …`) and hears when the server refuses it, so that an OAuth flow (or
//! any token store) can refresh the token before the request is sent once more.

use std::fmt;

use futures::future::BoxFuture;
use reqwest::header::HeaderValue;

use super::ClientError;

/// Supplies the bearer token of an HTTP connection. Set it in
/// [`ClientOptions::bearer`](super::ClientOptions::bearer).
pub trait BearerAuth: Send + Sync + fmt::Debug {
    /// The token for the next request; `None` sends none.
    fn token(&self) -> BoxFuture<'_, Option<String>>;

    /// The server answered `401 Unauthorized`, with its `WWW-Authenticate` challenge when it
    /// gave one. Return `true` once a fresh token is ready: the request is sent once more with
    /// it. The default gives up, and the 401 is the request's error.
    fn unauthorized<'a>(&'a self, challenge: Option<&'a str>) -> BoxFuture<'a, bool> {
        let _ = challenge;
        Box::pin(async { false })
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

impl BearerAuth for StaticBearer {
    fn token(&self) -> BoxFuture<'_, Option<String>> {
        Box::pin(async { Some(self.0.clone()) })
    }
}

/// The `Authorization` header value that carries `token`.
pub(super) fn bearer_value(token: &str) -> Result<HeaderValue, ClientError> {
    let mut value = HeaderValue::try_from(format!("Bearer {token}")).map_err(|_| {
        ClientError::InvalidParams("the bearer token has characters a header cannot carry".into())
    })?;
    value.set_sensitive(true);
    Ok(value)
}
