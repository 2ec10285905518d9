//! The user-agent step of the authorization code flow: the authorization URL is visited and
//! the authorization server redirects back to the client with a code.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use reqwest::{Method, Url};
use tokio::net::TcpListener;
use tokio::sync::{Mutex, mpsc};

use super::{AuthError, Fetcher};

/// Takes the user to the authorization server and brings back where it redirected.
pub trait UserAgent: Send + Sync + fmt::Debug {
    /// The redirect URI the client registers and names in the authorization request.
    fn redirect_uri(&self) -> String;

    /// Visits `url` (the authorization request) and returns the URL the authorization
    /// server redirected to, with its `code`, `state` and `iss` (or `error`).
    fn authorize<'a>(&'a self, url: &'a Url, fetcher: &'a Fetcher) -> BoxFuture<'a, Result<Url, AuthError>>;
}

/// For authorization servers that approve without a person: the authorization URL is
/// requested directly and its redirect read, not followed. Test servers and some
/// machine-to-machine setups work this way; a server that shows a login page needs
/// [`LoopbackBrowser`].
#[derive(Clone, Debug)]
pub struct Headless {
    redirect_uri: String,
}

impl Headless {
    /// A headless agent naming `redirect_uri` (nothing needs to listen there).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self { redirect_uri: redirect_uri.into() }
    }
}

impl Default for Headless {
    fn default() -> Self {
        Self::new("http://127.0.0.1/callback")
    }
}

impl UserAgent for Headless {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a Url, fetcher: &'a Fetcher) -> BoxFuture<'a, Result<Url, AuthError>> {
        Box::pin(async move {
            let answer = fetcher.request(Method::GET, url).await?;
            let location = answer
                .headers
                .get(http::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .filter(|_| answer.status.is_redirection());
            match location {
                Some(location) => url
                    .join(location)
                    .map_err(|e| AuthError::Refused(format!("the authorization redirect is not a URL: {e}"))),
                None => Err(AuthError::Refused(format!(
                    "the authorization endpoint answered HTTP {} instead of a redirect: it wants a person, \
                     so use a browser (LoopbackBrowser)",
                    answer.status.as_u16()
                ))),
            }
        })
    }
}

/// Opens the authorization URL in the user's browser (or prints it, where no browser opens)
/// and waits on a loopback listener (`http://127.0.0.1:PORT/callback`, RFC 8252 §7.3) for the
/// redirect, for at most [`LoopbackBrowser::wait`].
pub struct LoopbackBrowser {
    listener: Arc<TcpListener>,
    port: u16,
    wait: Duration,
    open: bool,
    serving: Mutex<()>,
}

impl fmt::Debug for LoopbackBrowser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackBrowser").field("port", &self.port).finish_non_exhaustive()
    }
}

impl LoopbackBrowser {
    /// Binds the redirect listener on a free loopback port.
    pub async fn bind() -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener: Arc::new(listener),
            port,
            wait: Duration::from_secs(300),
            open: true,
            serving: Mutex::new(()),
        })
    }

    /// How long to wait for the user. Default 5 minutes.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// Whether to try to open a browser, or only print the URL. Default true.
    pub fn open_browser(mut self, open: bool) -> Self {
        self.open = open;
        self
    }

    /// Serves the listener until a request for `/callback` with this authorization's `state`
    /// arrives; returns its URL. A callback with another state (or none) is answered 400 and
    /// the wait goes on: any local process can reach the port, and the first hit used to be
    /// taken, ending the login with its error or its code.
    async fn callback(&self, state: Option<String>) -> Result<Url, AuthError> {
        let (found, mut arrived) = mpsc::channel::<String>(1);
        let state: std::sync::Arc<Option<String>> = std::sync::Arc::new(state);
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let (found, state) = (found.clone(), state.clone());
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let (found, state) = (found.clone(), state.clone());
                        async move { Ok::<_, std::convert::Infallible>(answer(&request, state.as_deref(), &found)) }
                    });
                    tokio::spawn(async move {
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
                Some(target) = arrived.recv() => {
                    let base = format!("http://127.0.0.1:{}", self.port);
                    return Url::parse(&base)
                        .and_then(|base| base.join(&target))
                        .map_err(|e| AuthError::Refused(format!("the redirect is not a URL: {e}")));
                }
            }
        }
    }
}

/// The listener's answer: the callback carrying `state` is taken and thanked; another
/// callback is 400, anything else 404.
fn answer(
    request: &Request<Incoming>,
    state: Option<&str>,
    found: &mpsc::Sender<String>,
) -> Response<Full<Bytes>> {
    let refused = |status: StatusCode, text: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
        *response.status_mut() = status;
        response
    };
    let target = request.uri().path_and_query().map(|p| p.as_str().to_owned()).unwrap_or_default();
    if request.uri().path() != "/callback" {
        return refused(StatusCode::NOT_FOUND, "not found");
    }
    let given = url::form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
        .find(|(name, _)| name == "state")
        .map(|(_, value)| value.into_owned());
    if state.is_some_and(|state| given.as_deref() != Some(state)) {
        return refused(StatusCode::BAD_REQUEST, "not the callback of the authorization under way");
    }
    let _ = found.try_send(target);
    let page =
        "<!doctype html><title>modelctx</title><p>Authorization is done: you can close this window.</p>";
    let mut response = Response::new(Full::new(Bytes::from_static(page.as_bytes())));
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/html"));
    response
}

impl UserAgent for LoopbackBrowser {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(&'a self, url: &'a Url, _fetcher: &'a Fetcher) -> BoxFuture<'a, Result<Url, AuthError>> {
        Box::pin(async move {
            let _one_at_a_time = self.serving.lock().await;
            let opened = self.open && crate::client::browser::open_in_browser(url);
            if opened {
                eprintln!("Opening your browser to authorize. If it does not open, visit:\n\n  {url}\n");
            } else {
                eprintln!("To authorize, visit:\n\n  {url}\n");
            }
            let state =
                url.query_pairs().find(|(name, _)| name == "state").map(|(_, value)| value.into_owned());
            tokio::time::timeout(self.wait, self.callback(state)).await.map_err(|_| {
                AuthError::Refused(format!("no authorization arrived within {} s", self.wait.as_secs()))
            })?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::fetch::{FetchLimits, Fetcher};

    /// Only the callback carrying this authorization's `state` ends the wait; another is
    /// refused and the wait goes on (the first hit on the port used to be taken).
    #[tokio::test]
    async fn only_the_callback_with_the_authorizations_state_is_taken() {
        let browser = std::sync::Arc::new(LoopbackBrowser::bind().await.unwrap().open_browser(false));
        let callback = browser.redirect_uri();
        let authorizing = {
            let browser = browser.clone();
            tokio::spawn(async move {
                let url =
                    Url::parse("https://as.example.com/authorize?state=the-state&code_challenge=x").unwrap();
                let fetcher = Fetcher::new(FetchLimits::default()).unwrap();
                browser.authorize(&url, &fetcher).await
            })
        };
        let http = reqwest::Client::new();
        for forged in ["?code=forged", "?code=forged&state=another"] {
            let status = http.get(format!("{callback}{forged}")).send().await.unwrap().status();
            assert_eq!(status, 400, "{forged}");
        }
        assert_eq!(
            http.get(format!("{callback}?code=real&state=the-state")).send().await.unwrap().status(),
            200
        );
        let taken =
            tokio::time::timeout(Duration::from_secs(10), authorizing).await.unwrap().unwrap().unwrap();
        assert!(taken.as_str().contains("code=real"), "{taken}");
    }
}
