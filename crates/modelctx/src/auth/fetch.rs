//! The one HTTP client of authorization: every metadata document, registration, token
//! request and authorization request goes through it, so every URL a server names is checked
//! the same way before anything is sent (server-side request forgery, RFC 9728 §7.7,
//! the MCP security considerations).

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::AuthError;
use crate::client::browser::is_loopback_host;
use crate::client::egress::Egress;

/// The bounds of [`Fetcher`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchLimits {
    /// Which addresses may be reached. Default: public addresses only. Set [`Egress::Any`] to
    /// reach an authorization server on loopback or a private network; plain `http` is then
    /// allowed to loopback hosts (and only to them).
    pub egress: Egress,
    /// The longest one exchange may take, connecting included. Default 15 s.
    pub timeout: Duration,
    /// The largest body read (a metadata document, a token response). Default 256 KiB.
    pub max_bytes: usize,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self { egress: Egress::PublicOnly, timeout: Duration::from_secs(15), max_bytes: 256 * 1024 }
    }
}

/// What a [`Fetcher`] request was answered: its status, headers and body (bounded).
#[derive(Debug)]
pub struct Fetched {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body, at most [`FetchLimits::max_bytes`].
    pub body: Vec<u8>,
}

impl Fetched {
    /// The body as JSON of type `T`, or why not.
    pub(crate) fn json<T: DeserializeOwned>(&self, what: &str) -> Result<T, AuthError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| AuthError::Discovery(format!("{what} is not valid: {e}")))
    }

    /// An OAuth error answer (`error`, `error_description`), or the status when it is none.
    pub(crate) fn oauth_error(&self) -> AuthError {
        let body: Value = serde_json::from_slice(&self.body).unwrap_or_default();
        match body.get("error").and_then(Value::as_str) {
            Some(error) => AuthError::Denied {
                error: error.to_owned(),
                description: body.get("error_description").and_then(Value::as_str).map(str::to_owned),
            },
            None => {
                AuthError::Http(format!("the authorization server answered HTTP {}", self.status.as_u16()))
            }
        }
    }
}

/// One HTTP exchange of authorization, as a [`FetchObserver`] is told of it: the challenge of
/// the MCP server, each metadata document, the registration, each token request's answer.
/// Its body may hold secrets (tokens, a client secret): an observer that shows it masks them.
#[derive(Debug)]
pub struct Exchange<'a> {
    /// The request's method.
    pub method: &'a Method,
    /// Where it went.
    pub url: &'a Url,
    /// The answer's status.
    pub status: StatusCode,
    /// The answer's headers.
    pub headers: &'a HeaderMap,
    /// The answer's body (within [`FetchLimits::max_bytes`]).
    pub body: &'a [u8],
}

/// Told of every exchange a [`Fetcher`] makes, once it is answered (a tool that shows the
/// steps of authorization, such as an inspector).
#[derive(Clone)]
pub struct FetchObserver(Arc<dyn Fn(&Exchange<'_>) + Send + Sync>);

impl FetchObserver {
    /// An observer calling `observe` with each exchange.
    pub fn new(observe: impl Fn(&Exchange<'_>) + Send + Sync + 'static) -> Self {
        Self(Arc::new(observe))
    }
}

impl std::fmt::Debug for FetchObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FetchObserver")
    }
}

/// Sends authorization's HTTP requests within [`FetchLimits`]. It follows no redirect: a
/// metadata document that moved is not there, and an authorization server's redirect is
/// read, not followed.
#[derive(Clone, Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    limits: FetchLimits,
    observer: Option<FetchObserver>,
}

impl Fetcher {
    /// A fetcher within `limits`.
    pub fn new(limits: FetchLimits) -> Result<Self, AuthError> {
        let client = limits
            .egress
            .client_builder()
            .timeout(limits.timeout)
            .connect_timeout(limits.timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| AuthError::Config(format!("the HTTP client could not be built: {e}")))?;
        Ok(Self { client, limits, observer: None })
    }

    /// The same fetcher, telling `observer` of each exchange.
    pub fn observed(self, observer: Option<FetchObserver>) -> Self {
        Self { observer, ..self }
    }

    /// Whether `url` may be requested at all: `https`, or `http` to a loopback host when
    /// loopback is allowed; a literal address allowed by the egress rule. Nothing is sent for
    /// a URL refused here.
    pub fn check(&self, url: &Url) -> Result<(), AuthError> {
        let refused = |why: String| AuthError::Refused(format!("{url} cannot be fetched: {why}"));
        match url.scheme() {
            "https" => {}
            "http" if self.limits.egress == Egress::Any && is_loopback_host(url) => {}
            "http" => return Err(refused("authorization URLs must be https".into())),
            other => return Err(refused(format!("the {other}: scheme is not allowed"))),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(refused("the URL carries credentials".into()));
        }
        self.limits.egress.check_url(url).map_err(refused)
    }

    /// GETs `url` as JSON: `Ok(None)` when the answer is not a success (the document is not
    /// there), the document when it is.
    pub async fn get_document<T: DeserializeOwned>(
        &self,
        url: &Url,
        what: &str,
    ) -> Result<Option<T>, AuthError> {
        let answer = self.send(self.client.get(url.clone()).header(ACCEPT, "application/json"), url).await?;
        if !answer.status.is_success() {
            tracing::debug!(%url, status = answer.status.as_u16(), "no {what} here");
            return Ok(None);
        }
        answer.json(&format!("the {what} at {url}")).map(Some)
    }

    /// POSTs `form` to `url`, with `headers`.
    pub async fn post_form(
        &self,
        url: &Url,
        form: &[(&str, &str)],
        headers: HeaderMap,
    ) -> Result<Fetched, AuthError> {
        let request =
            self.client.post(url.clone()).headers(headers).header(ACCEPT, "application/json").form(form);
        self.send(request, url).await
    }

    /// POSTs `body` as JSON to `url`, accepting the media types of `accept`.
    pub async fn post_json(&self, url: &Url, body: &Value, accept: &str) -> Result<Fetched, AuthError> {
        let request = self
            .client
            .post(url.clone())
            .header(ACCEPT, accept)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        self.send(request, url).await
    }

    /// Sends `method url` and returns the answer without following a redirect.
    pub async fn request(&self, method: Method, url: &Url) -> Result<Fetched, AuthError> {
        self.send(self.client.request(method, url.clone()), url).await
    }

    async fn send(&self, request: reqwest::RequestBuilder, url: &Url) -> Result<Fetched, AuthError> {
        self.check(url)?;
        let failed = |e: reqwest::Error| AuthError::Http(format!("{url}: {}", without_url(e)));
        let request = request.build().map_err(failed)?;
        let method = request.method().clone();
        let response = self.client.execute(request).await.map_err(failed)?;
        let status = response.status();
        let headers = response.headers().clone();
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(failed)?;
            if body.len() + chunk.len() > self.limits.max_bytes {
                return Err(AuthError::Http(format!(
                    "{url}: the answer is larger than {} bytes",
                    self.limits.max_bytes
                )));
            }
            body.extend_from_slice(&chunk);
        }
        if let Some(observer) = &self.observer {
            (observer.0)(&Exchange { method: &method, url, status, headers: &headers, body: &body });
        }
        Ok(Fetched { status, headers, body })
    }
}

/// A reqwest error's message and causes, without the URL it names (the caller names it
/// already, and a URL can carry a code).
fn without_url(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetcher(egress: Egress) -> Fetcher {
        Fetcher::new(FetchLimits { egress, ..FetchLimits::default() }).unwrap()
    }

    #[test]
    fn auth_52_only_https_and_loopback_http_when_allowed() {
        let check = |egress, url: &str| fetcher(egress).check(&Url::parse(url).unwrap());
        assert!(check(Egress::PublicOnly, "https://as.example.com/token").is_ok());
        assert!(check(Egress::PublicOnly, "http://as.example.com/token").is_err());
        assert!(check(Egress::PublicOnly, "http://localhost:8080/token").is_err());
        assert!(check(Egress::PublicOnly, "https://169.254.169.254/latest").is_err());
        assert!(check(Egress::Any, "http://localhost:8080/token").is_ok());
        assert!(check(Egress::Any, "http://[::1]:8080/token").is_ok());
        assert!(check(Egress::Any, "http://10.0.0.5/token").is_err(), "http only to loopback");
        for scheme in ["javascript:alert(1)", "file:///etc/passwd", "data:text/plain,x", "ftp://as.example/"]
        {
            let refused = check(Egress::Any, scheme).unwrap_err().to_string();
            assert!(refused.contains("scheme is not allowed"), "{refused}");
        }
        assert!(check(Egress::Any, "https://user:pw@as.example/").is_err());
    }
}
