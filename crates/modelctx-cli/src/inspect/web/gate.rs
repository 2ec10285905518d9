//! Who may use the inspector: the page can spawn any command with the rights of the person who
//! started it, so every request must
//! - name this inspector's own address in `Host` (a DNS-rebound name does not: `421`);
//! - not come from another site as a browser says it (`Sec-Fetch-Site`: `403`);
//! - carry the token of the printed URL (`401` without it).
//!
//! A request that changes anything (any method but `GET`) must also come from the page
//! itself: the token in the `X-Inspector-Token` header, which another origin's page cannot add
//! without a CORS preflight the inspector never grants, and the page's own `Origin` (`403`
//! otherwise). Bodies are JSON, which a form of another site cannot send (`415`, said by the
//! handlers' `Json`). The page's static assets need only the right `Host`; an app's document
//! (`/app-view/{id}`) needs its one-time random id instead of the token, and loads only in a
//! frame (`Sec-Fetch-Dest: iframe`); an authorization server's redirect back
//! (`/oauth/callback`, from its own site) needs the `state` of a login that waits for it.

use std::net::SocketAddr;

use axum::extract::Request;
use axum::http::{Method, StatusCode, header};

use crate::run_token::same;

/// Where an authorization server sends the person back after consent (`oauth.rs`).
pub const OAUTH_CALLBACK: &str = "/oauth/callback";

/// Where the page frames apps' documents from (`apps.rs`).
pub const APP_VIEWS: &str = "/app-view/";

/// The checks, for one inspector's address and token.
pub struct Gate {
    token: String,
    /// The `Host` values that name this inspector: its address, and `localhost` with its port.
    hosts: Vec<String>,
}

/// Why a request is refused: its status and a sentence a person can act on.
pub type Refusal = (StatusCode, String);

impl Gate {
    /// The gate of an inspector bound at `address` whose URL carries `token`.
    pub fn new(token: String, address: SocketAddr) -> Self {
        let hosts = vec![address.to_string(), format!("localhost:{}", address.port())];
        Self { token, hosts }
    }

    /// The address the inspector answers at (`host:port`).
    pub fn address(&self) -> &str {
        &self.hosts[0]
    }

    /// The token the page's URL carries.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Lets `request` through, or says why not.
    pub fn check(&self, request: &Request) -> Result<(), Refusal> {
        let headers = request.headers();
        let text = |name: &header::HeaderName| headers.get(name).and_then(|value| value.to_str().ok());
        let host = text(&header::HOST).unwrap_or_default();
        if !self.hosts.iter().any(|ours| ours.eq_ignore_ascii_case(host)) {
            return Err((
                StatusCode::MISDIRECTED_REQUEST,
                format!("this inspector answers at http://{}/ only, not at Host {host:?}\n", self.hosts[0]),
            ));
        }
        if request.uri().path() == OAUTH_CALLBACK {
            // The authorization server's redirect, from its own site: the flow's one-time
            // `state` is the proof (`oauth.rs`), and it changes nothing but that flow.
            if request.method() != Method::GET {
                return Err((StatusCode::METHOD_NOT_ALLOWED, "an authorization response is a GET\n".into()));
            }
            return Ok(());
        }
        let site = headers.get("sec-fetch-site").and_then(|value| value.to_str().ok());
        if site.is_some_and(|site| !matches!(site, "same-origin" | "none")) {
            return Err((StatusCode::FORBIDDEN, "a page of another site may not use the inspector\n".into()));
        }
        if super::is_asset(request.uri().path()) {
            return Ok(());
        }
        if request.uri().path().starts_with(APP_VIEWS) {
            // An app's document, framed by the page: its one-time id is the proof, and only a
            // frame may load it (an app opened as a page could be mistaken for this one).
            let dest = headers.get("sec-fetch-dest").and_then(|value| value.to_str().ok());
            if request.method() != Method::GET || dest.is_some_and(|dest| dest != "iframe") {
                return Err((
                    StatusCode::FORBIDDEN,
                    "an app's document is shown in the inspector's frame only\n".into(),
                ));
            }
            return Ok(());
        }
        let in_header = headers.get("x-inspector-token").and_then(|value| value.to_str().ok());
        let in_query = query_token(request.uri().query());
        let reading = matches!(*request.method(), Method::GET | Method::HEAD);
        let given = if reading { in_header.or(in_query) } else { in_header };
        if !given.is_some_and(|given| same(given, &self.token)) {
            if !reading && in_query.is_some() {
                return Err((
                    StatusCode::FORBIDDEN,
                    "a request that changes something carries the token in X-Inspector-Token, not in the URL\n"
                        .into(),
                ));
            }
            return Err((
                StatusCode::UNAUTHORIZED,
                "open the URL modelctx inspect printed: it carries the token this page needs\n".into(),
            ));
        }
        if !reading {
            let origin = text(&header::ORIGIN);
            let ours = origin
                .and_then(|origin| origin.strip_prefix("http://"))
                .is_some_and(|host| self.hosts.iter().any(|ours| ours.eq_ignore_ascii_case(host)));
            if !ours {
                return Err((
                    StatusCode::FORBIDDEN,
                    format!(
                        "a request that changes something comes from the inspector's own page (Origin http://{}), not from {}\n",
                        self.hosts[0],
                        origin.map_or_else(
                            || "a request without an Origin".to_owned(),
                            |origin| format!("{origin:?}")
                        )
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The `token` of a query string.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|pair| pair.strip_prefix("token="))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(method: &str, uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).unwrap()
    }

    #[test]
    fn the_token_is_found_in_the_query() {
        assert_eq!(query_token(Some("a=1&token=abc")), Some("abc"));
        assert_eq!(query_token(Some("tokens=abc")), None);
    }

    #[test]
    fn only_the_pages_own_requests_pass() {
        let gate = Gate::new("t0k".into(), "127.0.0.1:4000".parse().unwrap());
        let status = |request: Request| gate.check(&request).err().map(|(status, _)| status.as_u16());
        let host = ("host", "127.0.0.1:4000");
        let origin = ("origin", "http://127.0.0.1:4000");
        let token = ("x-inspector-token", "t0k");
        assert_eq!(status(request("GET", "/?token=t0k", &[host])), None);
        assert_eq!(status(request("GET", "/?token=t0k", &[("host", "localhost:4000")])), None);
        assert_eq!(status(request("GET", "/?token=t0k", &[("host", "evil.example:4000")])), Some(421));
        assert_eq!(status(request("GET", "/app.js", &[host])), None);
        assert_eq!(status(request("GET", "/api/servers", &[host])), Some(401));
        assert_eq!(status(request("GET", "/api/servers?token=nope", &[host])), Some(401));
        assert_eq!(
            status(request("GET", "/api/servers", &[host, ("sec-fetch-site", "cross-site"), token])),
            Some(403)
        );
        assert_eq!(status(request("POST", "/api/servers", &[host, origin, token])), None);
        assert_eq!(status(request("POST", "/api/servers?token=t0k", &[host, origin])), Some(403));
        assert_eq!(status(request("POST", "/api/servers", &[host, token])), Some(403));
        assert_eq!(
            status(request("POST", "/api/servers", &[host, token, ("origin", "http://evil.example")])),
            Some(403)
        );
        assert_eq!(status(request("DELETE", "/api/servers/1", &[host, origin, token])), None);
        let framed = ("sec-fetch-dest", "iframe");
        assert_eq!(
            status(request("GET", "/app-view/abc", &[host, framed, ("sec-fetch-site", "same-origin")])),
            None
        );
        assert_eq!(
            status(request("GET", "/app-view/abc", &[host, ("sec-fetch-dest", "document")])),
            Some(403)
        );
        assert_eq!(
            status(request("GET", "/app-view/abc", &[host, framed, ("sec-fetch-site", "cross-site")])),
            Some(403)
        );
        assert_eq!(status(request("POST", "/app-view/abc", &[host, framed])), Some(403));
        let from_the_server = ("sec-fetch-site", "cross-site");
        assert_eq!(status(request("GET", "/oauth/callback?code=c&state=s", &[host, from_the_server])), None);
        assert_eq!(status(request("POST", "/oauth/callback", &[host, from_the_server])), Some(405));
        assert_eq!(status(request("GET", "/oauth/callback", &[("host", "evil.example:4000")])), Some(421));
    }
}
