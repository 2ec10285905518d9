//! OAuth in the page, for a server reached by URL: the flow `modelctx login` runs — the
//! server's challenge, its protected resource metadata, the authorization server's metadata,
//! registration, consent, tokens — with each HTTP exchange shown to the page as a step, its
//! document beside it and every secret in it masked; the consent page opened by the person in
//! a new tab, which the authorization server sends back to `/oauth/callback` here; the tokens
//! kept where `modelctx login` keeps them, so the connection (and every other command) uses
//! them. At most [`MAX_FLOWS`] run at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use futures::future::BoxFuture;
use modelctx::auth::{AuthError, Exchange, FetchObserver, Fetcher, Grant, UserAgent};
use reqwest::Url;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use super::Inspector;
use super::api::refused;
use crate::run_token::random_token;

/// Logins running at once, at most.
pub const MAX_FLOWS: usize = 4;
/// How long the person has to consent in the other tab.
const CONSENT_WITHIN: Duration = Duration::from_secs(300);
/// The most of a document shown that is not JSON.
const MAX_SHOWN_TEXT: usize = 4096;
/// The members of a document that hold secrets, masked wherever they appear.
const SECRET_MEMBERS: [&str; 9] = [
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "registration_access_token",
    "code",
    "code_verifier",
    "assertion",
    "device_code",
];

/// What a flow has shown so far, and how it ended.
#[derive(Default)]
struct Progress {
    steps: Vec<Value>,
    /// The consent page the person opens, once the flow got there.
    consent: Option<String>,
    /// How it ended: what to tell the person, or why it failed.
    outcome: Option<Result<String, String>>,
}

/// One login: its progress (watched by the page's requests) and, while it waits for the
/// person, the `state` its callback must carry and where the callback goes.
struct Flow {
    progress: watch::Sender<Progress>,
    waiting: Mutex<Option<(String, oneshot::Sender<Url>)>>,
}

impl Flow {
    fn record(&self, step: Value) {
        self.progress.send_modify(|progress| progress.steps.push(step));
    }
}

/// The logins, by id.
#[derive(Default)]
pub struct Logins {
    flows: Mutex<HashMap<String, Arc<Flow>>>,
}

impl Logins {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Flow>>> {
        self.flows.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The page as the user agent: it shows the consent page's URL to the person, who opens it in
/// another tab, and waits for the authorization server to send that tab back here.
struct PageAgent {
    redirect_uri: String,
    flow: Arc<Flow>,
}

impl std::fmt::Debug for PageAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageAgent").field("redirect_uri", &self.redirect_uri).finish()
    }
}

impl UserAgent for PageAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a Url, _fetcher: &'a Fetcher) -> BoxFuture<'a, Result<Url, AuthError>> {
        Box::pin(async move {
            let state =
                url.query_pairs().find(|(key, _)| key == "state").map(|(_, value)| value.into_owned());
            let state =
                state.ok_or_else(|| AuthError::Refused("the authorization URL carries no state".into()))?;
            let (back, came_back) = oneshot::channel();
            *self.flow.waiting.lock().unwrap_or_else(PoisonError::into_inner) = Some((state, back));
            self.flow.record(json!({"step": "consent", "url": url.as_str(),
                                    "note": "opened by you in a new tab; the authorization server sends it back here"}));
            self.flow.progress.send_modify(|progress| progress.consent = Some(url.to_string()));
            let callback = tokio::time::timeout(CONSENT_WITHIN, came_back).await;
            let callback = callback
                .map_err(|_| AuthError::Refused(format!("no consent within {} s", CONSENT_WITHIN.as_secs())))?
                .map_err(|_| AuthError::Refused("the login was abandoned".into()))?;
            self.flow.record(json!({"step": "callback", "url": masked_url(&callback)}));
            Ok(callback)
        })
    }
}

/// `url` as a person reads it (its query decoded), the values of secret parameters masked.
fn masked_url(url: &Url) -> String {
    if url.query().is_none() {
        return url.to_string();
    }
    let mut base = url.clone();
    base.set_query(None);
    let pairs: Vec<String> = url
        .query_pairs()
        .map(|(key, value)| {
            let value =
                if SECRET_MEMBERS.contains(&key.as_ref()) { mask(&value) } else { value.into_owned() };
            format!("{key}={value}")
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}

fn mask(secret: &str) -> String {
    format!("•••• ({} characters, masked)", secret.chars().count())
}

/// `value` with every secret member, at any depth, masked.
fn masked(value: Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, value)| match value {
                    Value::String(secret) if SECRET_MEMBERS.contains(&key.as_str()) => {
                        (key, mask(&secret).into())
                    }
                    other => (key, masked(other)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(masked).collect()),
        other => other,
    }
}

/// What the page shows of one exchange: where it went, its status, the server's challenge,
/// and the document it answered — JSON with its secrets masked, or the start of its text.
fn step_of(exchange: &Exchange<'_>) -> Value {
    let url = exchange.url;
    let what = if exchange.status.as_u16() == 401 || exchange.status.as_u16() == 403 {
        "challenge"
    } else if url.path().contains("/.well-known/oauth-protected-resource") {
        "protected resource metadata"
    } else if url.path().contains("/.well-known/") {
        "authorization server metadata"
    } else if exchange.method == reqwest::Method::POST && url.path().ends_with("register") {
        "registration"
    } else if exchange.method == reqwest::Method::POST {
        "tokens"
    } else {
        "request"
    };
    let challenge = exchange.headers.get_all(reqwest::header::WWW_AUTHENTICATE).iter();
    let challenge: Vec<&str> = challenge.filter_map(|value| value.to_str().ok()).collect();
    let document = match serde_json::from_slice::<Value>(exchange.body) {
        Ok(document) => masked(document),
        Err(_) => {
            let text = String::from_utf8_lossy(exchange.body);
            Value::String(text.chars().take(MAX_SHOWN_TEXT).collect())
        }
    };
    json!({"step": what, "method": exchange.method.as_str(), "url": masked_url(url),
           "status": exchange.status.as_u16(), "challenge": challenge, "document": document})
}

/// What `POST /api/login` takes: the server's URL.
#[derive(Deserialize)]
pub struct LoginForm {
    url: String,
}

/// The flow's state for the page.
fn shown(id: &str, progress: &Progress) -> Value {
    let (outcome, error) = match &progress.outcome {
        Some(Ok(outcome)) => (Some(outcome.clone()), None),
        Some(Err(error)) => (None, Some(error.clone())),
        None => (None, None),
    };
    json!({"result": {"flow": id, "steps": progress.steps, "consent": progress.consent,
                      "done": progress.outcome.is_some(), "outcome": outcome, "failure": error}})
}

/// `POST /api/login`: starts logging in to the server at `url`; answers once the person must
/// consent (the consent page's URL) or the flow ended, with the steps so far. `429` while
/// [`MAX_FLOWS`] run.
pub async fn start(State(inspector): State<Arc<Inspector>>, Json(form): Json<LoginForm>) -> Response {
    let id = match random_token() {
        Ok(id) => id,
        Err(e) => return refused(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    let flow =
        Arc::new(Flow { progress: watch::Sender::new(Progress::default()), waiting: Mutex::default() });
    {
        let mut flows = inspector.logins.lock();
        flows.retain(|_, flow| flow.progress.borrow().outcome.is_none());
        if flows.len() >= MAX_FLOWS {
            return refused(
                StatusCode::TOO_MANY_REQUESTS,
                format!("{MAX_FLOWS} logins are running, the most at once: finish one first"),
            );
        }
        flows.insert(id.clone(), Arc::clone(&flow));
    }
    let agent = PageAgent {
        redirect_uri: format!("http://{}/oauth/callback", inspector.gate.address()),
        flow: Arc::clone(&flow),
    };
    let observer = {
        let flow = Arc::clone(&flow);
        FetchObserver::new(move |exchange| flow.record(step_of(exchange)))
    };
    let running = Arc::clone(&flow);
    tokio::spawn(async move {
        let outcome =
            crate::login::log_in_from(&form.url, Grant::AuthorizationCode(Arc::new(agent)), observer).await;
        running
            .progress
            .send_modify(|progress| progress.outcome = Some(outcome.map_err(|failure| failure.to_string())));
    });
    let mut progress = flow.progress.subscribe();
    let _ = progress.wait_for(|progress| progress.consent.is_some() || progress.outcome.is_some()).await;
    Json(shown(&id, &flow.progress.borrow())).into_response()
}

/// The path's flow id.
#[derive(Deserialize)]
pub struct FlowPath {
    flow: String,
}

/// `GET /api/login/{flow}`: waits for the flow's end (as long as the person has to consent)
/// and gives its steps and outcome; `404` for an unknown flow.
pub async fn finish(
    State(inspector): State<Arc<Inspector>>,
    Path(FlowPath { flow: id }): Path<FlowPath>,
) -> Response {
    let Some(flow) = inspector.logins.lock().get(&id).cloned() else {
        return refused(StatusCode::NOT_FOUND, "no such login: start it again");
    };
    let mut progress = flow.progress.subscribe();
    let _ = tokio::time::timeout(
        CONSENT_WITHIN + Duration::from_secs(30),
        progress.wait_for(|p| p.outcome.is_some()),
    )
    .await;
    Json(shown(&id, &flow.progress.borrow())).into_response()
}

/// `GET /oauth/callback`: hands the authorization server's redirect back (`code`, `state`,
/// `iss` or `error`) to the flow whose `state` it carries (the proof that it answers this
/// inspector's request: it needs no token, it comes from another site); `400` for a `state` no
/// flow waits for.
pub async fn callback(State(inspector): State<Arc<Inspector>>, request: axum::extract::Request) -> Response {
    let own = format!("http://{}{}", inspector.gate.address(), request.uri());
    let url = Url::parse(&own).ok();
    let state = url
        .as_ref()
        .and_then(|url| url.query_pairs().find(|(key, _)| key == "state"))
        .map(|(_, v)| v.into_owned());
    let (Some(state), Some(url)) = (state, url) else {
        return (StatusCode::BAD_REQUEST, "an authorization response carries a state").into_response();
    };
    let flows: Vec<Arc<Flow>> = inspector.logins.lock().values().cloned().collect();
    for flow in flows {
        let mut waiting = flow.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if waiting.as_ref().is_some_and(|(expected, _)| crate::run_token::same(expected, &state)) {
            if let Some((_, back)) = waiting.take() {
                let _ = back.send(url);
            }
            return Html("<!doctype html><title>modelctx inspect</title><p>Authorized: go back to the inspector's tab; this one can be closed.</p>").into_response();
        }
    }
    (
        StatusCode::BAD_REQUEST,
        "no login of this inspector waits for this answer (it ended, or it was not asked for here)",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_wherever_they_appear() {
        let token = json!({"access_token": "eyJsecret", "token_type": "Bearer",
                           "nested": [{"refresh_token": "r3fresh"}], "scope": "a b"});
        let shown = masked(token).to_string();
        assert!(!shown.contains("eyJsecret") && !shown.contains("r3fresh"), "{shown}");
        assert!(shown.contains("9 characters, masked") && shown.contains("\"scope\":\"a b\""), "{shown}");
        let url = Url::parse("http://127.0.0.1:1/oauth/callback?code=abc123&state=s&iss=x").unwrap();
        let shown = masked_url(&url);
        assert!(!shown.contains("abc123") && shown.contains("state=s"), "{shown}");
        assert_eq!(masked_url(&Url::parse("http://127.0.0.1:1/token").unwrap()), "http://127.0.0.1:1/token");
    }
}
