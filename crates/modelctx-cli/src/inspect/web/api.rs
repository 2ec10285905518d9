//! The page's API: JSON over HTTP for what it asks (`/api/tools`, `/api/tools/call`, …) and a
//! server-sent event stream for what happens (`/api/events`). A request the server refuses is
//! answered `200` with `{"error": …}` — the refusal is what the page shows — and one that
//! cannot be made (not connected yet, a malformed body) with a 4xx status.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt as _};
use modelctx::client::Client;
use modelctx::client::cards::{CardFetcher, card_url};
use modelctx::protocol::http_lists::ListKind;
use modelctx::protocol::server_card::EXTENSION_ID;
use modelctx::protocol::types::{ElicitAction, ElicitValue, LoggingLevel};
use modelctx::protocol::v2026::{self, ElicitResult};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::Inspector;
use super::session::Session;

type Shared = State<Arc<Inspector>>;

/// What `work` answers with the connection, or the status that says why there is none.
async fn with_client<Fut>(inspector: &Inspector, work: impl FnOnce(Arc<Client>) -> Fut) -> Response
where
    Fut: std::future::Future<Output = Response>,
{
    match inspector.session.client() {
        Some(Ok(client)) => work(client).await,
        Some(Err(why)) => (StatusCode::BAD_GATEWAY, Json(json!({"error": why}))).into_response(),
        None => (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"error": "still connecting"}))).into_response(),
    }
}

/// The page's answer for an outcome of the client.
fn answer<T: serde::Serialize>(outcome: Result<T, modelctx::client::ClientError>) -> Response {
    match outcome {
        Ok(value) => Json(json!({"result": value})).into_response(),
        Err(error) => Json(json!({"error": error.to_string()})).into_response(),
    }
}

/// `GET /api/session`: the target, the connection's state, and the server's discover (or
/// initialize) result.
pub async fn session(State(inspector): Shared) -> Json<Value> {
    let target = &inspector.session.target;
    Json(match inspector.session.client() {
        None => json!({"target": target, "state": "connecting"}),
        Some(Err(why)) => json!({"target": target, "state": "failed", "error": why}),
        Some(Ok(client)) => {
            let server = client.server();
            json!({
                "target": target,
                "state": "connected",
                "era": format!("{:?}", client.era()),
                "transport": client.transport(),
                "protocolVersion": server.version.to_string(),
                "serverInfo": server.info,
                "capabilities": v2026::ServerCapabilities::from(server.capabilities.clone()),
                "instructions": server.instructions,
            })
        }
    })
}

/// `GET /api/card`: the server's card (server cards, experimental) when the target is a URL
/// and the server declares the extension — the card, where it was read, and where it and the
/// live server disagree; `null` otherwise.
pub async fn card(State(inspector): Shared) -> Response {
    let endpoint = inspector.endpoint.clone();
    with_client(&inspector, |client| async move {
        let declared =
            client.server().capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(EXTENSION_ID));
        let Some(endpoint) = endpoint.filter(|_| declared) else {
            return Json(json!({"result": null})).into_response();
        };
        let url = card_url(&endpoint);
        let fetched = match url::Url::parse(&url) {
            Ok(parsed) => match CardFetcher::new(crate::login::egress_for(&parsed)) {
                Ok(cards) => cards.card(&url).await.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            },
            Err(e) => Err(format!("{url}: {e}")),
        };
        match fetched {
            Ok(fetched) => {
                let server = client.server();
                let card = fetched.document;
                let disagreements = card.disagreements(server.info.as_ref(), &server.version.to_string());
                Json(json!({"result": {"url": url, "card": card, "disagreements": disagreements}}))
                    .into_response()
            }
            Err(error) => Json(json!({"error": error})).into_response(),
        }
    })
    .await
}

/// `GET /api/list-over-get/{list}` (`tools`, `prompts`, …): the first page of a list fetched
/// over HTTP GET (lists over GET, experimental) — the result and whether the server answered
/// `304` to the tag the inspector kept from the last time.
pub async fn list_over_get(State(inspector): Shared, Path(list): Path<String>) -> Response {
    let Some(kind) = ListKind::from_selector(&list) else {
        let why = format!("{list:?} is not a list (tools, prompts, resources, resource-templates)");
        return (StatusCode::BAD_REQUEST, Json(json!({"error": why}))).into_response();
    };
    with_client(&inspector, |client| async move {
        answer(
            client
                .list_over_get(kind, None)
                .await
                .map(|page| json!({"result": page.result, "revalidated": page.revalidated})),
        )
    })
    .await
}

/// What `POST /api/request` takes: any request the page sends again (the history's replay).
#[derive(Deserialize)]
pub struct Replayed {
    method: String,
    #[serde(default)]
    params: Value,
}

/// `POST /api/request`: sends `method` with `params` (the era's `_meta` added by the client),
/// answering with the server's raw result or its refusal.
pub async fn request(State(inspector): Shared, Json(replayed): Json<Replayed>) -> Response {
    with_client(&inspector, |client| async move {
        answer(client.request(replayed.method.as_str(), replayed.params).await)
    })
    .await
}

/// `POST /api/ping`: how long the server takes to answer `ping` (`server/discover` in
/// 2026-07-28, which has no `ping`).
pub async fn ping(State(inspector): Shared) -> Response {
    with_client(&inspector, |client| async move {
        let started = std::time::Instant::now();
        let pinged = client.ping().await;
        answer(pinged.map(|()| json!({"milliseconds": started.elapsed().as_secs_f64() * 1000.0})))
    })
    .await
}

/// What `POST /api/log-level` takes.
#[derive(Deserialize)]
pub struct LogLevel {
    level: LoggingLevel,
}

/// `POST /api/log-level`: asks for the server's log messages at `level` and above (each
/// 2026-07-28 request carries it; a 2025-11-25 session sets it with `logging/setLevel`).
pub async fn log_level(State(inspector): Shared, Json(wanted): Json<LogLevel>) -> Response {
    with_client(&inspector, |client| async move {
        answer(client.set_log_level(wanted.level).await.map(|()| json!({"level": wanted.level})))
    })
    .await
}

/// `GET /api/tools`.
pub async fn tools(State(inspector): Shared) -> Response {
    with_client(&inspector, |client| async move { answer(client.list_tools().await) }).await
}

/// What `POST /api/tools/call` takes.
#[derive(Deserialize)]
pub struct ToolCall {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// `POST /api/tools/call`: the call, its progress reported as events.
pub async fn call_tool(State(inspector): Shared, Json(call): Json<ToolCall>) -> Response {
    let session = Arc::clone(&inspector.session);
    with_client(&inspector, |client| async move { call_reporting(&session, &client, call).await }).await
}

/// Calls the tool, its progress reported as events.
async fn call_reporting(session: &Arc<Session>, client: &Client, call: ToolCall) -> Response {
    let arguments = if call.arguments.is_null() { json!({}) } else { call.arguments };
    let session = Arc::clone(session);
    let name = call.name.clone();
    let report = move |progress: modelctx::client::Progress| {
        let event = json!({"kind": "progress", "tool": name, "progress": progress.progress,
                           "total": progress.total, "message": progress.message});
        session.emit(event);
    };
    let called = client.call_tool_with_progress(&call.name, arguments, report).await;
    answer(called.map(|result| {
        json!({"content": result.content, "structuredContent": result.structured_content, "isError": result.is_error})
    }))
}

/// `GET /api/resources`: the resources and the templates.
pub async fn resources(State(inspector): Shared) -> Response {
    with_client(&inspector, |client| async move {
        let listed = async {
            let resources = client.list_resources().await?;
            let templates = client.list_resource_templates().await?;
            Ok(json!({"resources": resources, "templates": templates}))
        };
        answer(listed.await)
    })
    .await
}

/// What `POST /api/resources/read` takes.
#[derive(Deserialize)]
pub struct Read {
    uri: String,
}

/// `POST /api/resources/read`.
pub async fn read_resource(State(inspector): Shared, Json(read): Json<Read>) -> Response {
    with_client(&inspector, |client| async move { answer(client.read_resource(&read.uri).await) }).await
}

/// `GET /api/prompts`.
pub async fn prompts(State(inspector): Shared) -> Response {
    with_client(&inspector, |client| async move { answer(client.list_prompts().await) }).await
}

/// What `POST /api/prompts/get` takes.
#[derive(Deserialize)]
pub struct GetPrompt {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// `POST /api/prompts/get`.
pub async fn get_prompt(State(inspector): Shared, Json(get): Json<GetPrompt>) -> Response {
    let arguments = if get.arguments.is_null() { json!({}) } else { get.arguments };
    with_client(&inspector, |client| async move { answer(client.get_prompt(&get.name, arguments).await) })
        .await
}

/// What `POST /api/elicitations/{id}` takes: what the person did, and the form's values.
#[derive(Deserialize)]
pub struct ElicitationAnswer {
    action: ElicitAction,
    #[serde(default)]
    content: Option<std::collections::BTreeMap<String, ElicitValue>>,
}

/// `POST /api/elicitations/{id}`: `404` when no elicitation waits under that id.
pub async fn answer_elicitation(
    State(inspector): Shared,
    Path(id): Path<u64>,
    Json(given): Json<ElicitationAnswer>,
) -> StatusCode {
    let content = given.content.filter(|_| given.action == ElicitAction::Accept);
    if inspector.session.answer(id, ElicitResult { action: given.action, content }) {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::NOT_FOUND
    }
}

/// What `POST /api/samplings/{id}` takes: the person's answer as the model; none, or only
/// blanks, declines.
#[derive(Deserialize)]
pub struct SamplingAnswer {
    #[serde(default)]
    text: Option<String>,
}

/// `POST /api/samplings/{id}`: `404` when no sampling request waits under that id.
pub async fn answer_sampling(
    State(inspector): Shared,
    Path(id): Path<u64>,
    Json(given): Json<SamplingAnswer>,
) -> StatusCode {
    let text = given.text.filter(|text| !text.trim().is_empty());
    if inspector.session.answer_sampling(id, text) { StatusCode::NO_CONTENT } else { StatusCode::NOT_FOUND }
}

/// `GET /api/events`: every event so far, then each as it happens.
pub async fn events(State(inspector): Shared) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (history, live) = inspector.session.subscribe();
    let live = futures::stream::unfold(live, |mut live| async move {
        match live.recv().await {
            Ok(event) => Some((event, live)),
            Err(RecvError::Lagged(missed)) => Some((json!({"kind": "lagged", "missed": missed}), live)),
            Err(RecvError::Closed) => None,
        }
    });
    let events =
        futures::stream::iter(history).chain(live).map(|event| Ok(Event::default().data(event.to_string())));
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// Turns the connection's notifications into events.
pub fn forward_notifications(session: &Arc<Session>, client: &Arc<Client>) {
    let mut notes = client.notifications();
    let session = Arc::downgrade(session);
    tokio::spawn(async move {
        loop {
            let note = match notes.recv().await {
                Ok(note) => note,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            let Some(session) = session.upgrade() else { return };
            session.emit(json!({"kind": "notification", "method": note.method, "params": note.params}));
        }
    });
}
