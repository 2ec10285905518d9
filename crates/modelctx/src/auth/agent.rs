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

    /// Serves the listener until a request for `/callback` arrives; returns its URL.
    async fn callback(&self) -> Result<Url, AuthError> {
        let (found, mut arrived) = mpsc::channel::<String>(1);
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let found = found.clone();
                    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                        let found = found.clone();
                        async move { Ok::<_, std::convert::Infallible>(answer(&request, &found)) }
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

/// The listener's answer: the callback is taken and thanked; anything else is 404.
fn answer(request: &Request<Incoming>, found: &mpsc::Sender<String>) -> Response<Full<Bytes>> {
    let target = request.uri().path_and_query().map(|p| p.as_str().to_owned()).unwrap_or_default();
    if request.uri().path() != "/callback" {
        let mut response = Response::new(Full::new(Bytes::from_static(b"not found")));
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
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
            tokio::time::timeout(self.wait, self.callback()).await.map_err(|_| {
                AuthError::Refused(format!("no authorization arrived within {} s", self.wait.as_secs()))
            })?
        })
    }
}
