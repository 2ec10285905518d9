//! The page's API: the servers open (`/api/servers`: listed, opened, closed) and, for each,
//! JSON over HTTP for what the page asks (`/api/servers/{server}/tools`, `…/tools/call`, …)
//! and a server-sent event stream for what happens (`…/events`; `…` is
//! `/api/servers/{server}` in the docs below). A request the server refuses
//! is answered `200` with `{"error": …}` — the refusal is what the page shows — and one that
//! cannot be made (no such server, not connected yet, a malformed body) with a 4xx status.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt as _};
use modelctx::client::Client;
use modelctx::client::cards::{CardFetcher, card_url};
use modelctx::protocol::Era;
use modelctx::protocol::http_lists::ListKind;
use modelctx::protocol::model::CallToolResult;
use modelctx::protocol::server_card::EXTENSION_ID;
use modelctx::protocol::types::{ElicitAction, ElicitValue, LoggingLevel};
use modelctx::protocol::v2025;
use modelctx::protocol::v2026::{self, ElicitResult};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::Inspector;
use super::bench::{self, BenchForm};
use super::servers::{ConnectForm, MAX_SERVERS, configured};
use super::session::Session;
use super::subscriptions::{MAX_SUBSCRIPTIONS, Refused};

type Shared = State<Arc<Inspector>>;

/// A refusal the page shows: `status`, and `{"error": why}`.
pub fn refused(status: StatusCode, why: impl Into<String>) -> Response {
    (status, Json(json!({"error": why.into()}))).into_response()
}

/// The server a request names (`…/…`): `404` when none is open under it.
pub struct Served(pub Arc<Session>);

/// The path's server number.
#[derive(Deserialize)]
pub struct ServerPath {
    server: u64,
}

impl FromRequestParts<Arc<Inspector>> for Served {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, inspector: &Arc<Inspector>) -> Result<Self, Response> {
        let Path(ServerPath { server }) = Path::<ServerPath>::from_request_parts(parts, inspector)
            .await
            .map_err(IntoResponse::into_response)?;
        let session = inspector.servers.get(server);
        session
            .map(Served)
            .ok_or_else(|| refused(StatusCode::NOT_FOUND, format!("no server {server} is open")))
    }
}

/// `GET /api/servers`: each open server's number, target and state.
pub async fn servers(State(inspector): Shared) -> Json<Value> {
    Json(json!({"servers": inspector.servers.list(), "max": MAX_SERVERS}))
}

/// `POST /api/servers`: opens the server the connect form names (`{"id": N}`; connecting goes
/// on in the background); `400` for a form that names none, `429` when enough are open.
pub async fn open(State(inspector): Shared, Json(form): Json<ConnectForm>) -> Response {
    let target = match form.target() {
        Ok(target) => target,
        Err(why) => return refused(StatusCode::BAD_REQUEST, why),
    };
    match inspector.servers.open(target) {
        Some(id) => Json(json!({"id": id})).into_response(),
        None => refused(
            StatusCode::TOO_MANY_REQUESTS,
            format!("{MAX_SERVERS} servers are open, the most at once: close one first"),
        ),
    }
}

/// `DELETE /api/servers/{server}`: closes it (a spawned server ends).
pub async fn close(State(inspector): Shared, Path(ServerPath { server }): Path<ServerPath>) -> StatusCode {
    if inspector.servers.close(server) { StatusCode::NO_CONTENT } else { StatusCode::NOT_FOUND }
}

/// What `POST /api/config` takes: a host config file's path.
#[derive(Deserialize)]
pub struct ConfigFile {
    path: std::path::PathBuf,
}

/// `POST /api/config`: the servers a host config file names, to connect one.
pub async fn config(Json(file): Json<ConfigFile>) -> Response {
    match configured(&file.path) {
        Ok(servers) => Json(json!({"result": servers})).into_response(),
        Err(why) => Json(json!({"error": why})).into_response(),
    }
}

/// `POST …/bench`: starts `modelctx bench` against the server (`202`; its progress and report
/// come as events); `400` for a run out of bounds, `409` while one runs.
pub async fn bench(Served(session): Served, Json(form): Json<BenchForm>) -> Response {
    match form.run() {
        Err(why) => refused(StatusCode::BAD_REQUEST, why),
        Ok(run) => {
            if bench::start(&session, run) {
                StatusCode::ACCEPTED.into_response()
            } else {
                refused(StatusCode::CONFLICT, "a benchmark of this server is running: wait for its report")
            }
        }
    }
}

/// What `work` answers with the connection, or the status that says why there is none.
pub async fn with_client<Fut>(session: &Session, work: impl FnOnce(Arc<Client>) -> Fut) -> Response
where
    Fut: std::future::Future<Output = Response>,
{
    match session.client() {
        Some(Ok(client)) => work(client).await,
        Some(Err(why)) => refused(StatusCode::BAD_GATEWAY, why),
        None => refused(StatusCode::SERVICE_UNAVAILABLE, "still connecting"),
    }
}

/// The page's answer for an outcome of the client.
pub fn answer<T: serde::Serialize>(outcome: Result<T, modelctx::client::ClientError>) -> Response {
    match outcome {
        Ok(value) => Json(json!({"result": value})).into_response(),
        Err(error) => Json(json!({"error": error.to_string()})).into_response(),
    }
}

/// `GET /api/servers/{server}`: the target (and its words on `modelctx`'s command line), the
/// connection's state, and the server's discover (or initialize) result.
pub async fn session(Served(session): Served) -> Json<Value> {
    let (target, words) = (session.target(), session.reach.words());
    Json(match session.client() {
        None => json!({"target": target, "words": words, "state": "connecting"}),
        Some(Err(why)) => json!({"target": target, "words": words, "state": "failed", "error": why}),
        Some(Ok(client)) => {
            let server = client.server();
            json!({
                "target": target,
                "words": words,
                "state": "connected",
                "era": format!("{:?}", client.era()),
                "transport": client.transport(),
                "protocolVersion": server.version.to_string(),
                "serverInfo": server.info,
                "capabilities": match client.era() {
                    Era::Legacy => serde_json::to_value(v2025::ServerCapabilities::from(server.capabilities.clone())),
                    Era::Modern => serde_json::to_value(v2026::ServerCapabilities::from(server.capabilities.clone())),
                }
                .unwrap_or_default(),
                "instructions": server.instructions,
            })
        }
    })
}

/// `GET …/card`: the server's card (server cards, experimental) when the target is a URL
/// and the server declares the extension — the card, where it was read, and where it and the
/// live server disagree; `null` otherwise.
pub async fn card(Served(session): Served) -> Response {
    let endpoint = session.endpoint().map(str::to_owned);
    with_client(&session, |client| async move {
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

/// The path's list.
#[derive(Deserialize)]
pub struct ListPath {
    list: String,
}

/// `GET …/list-over-get/{list}` (`tools`, `prompts`, …): the first page of a list fetched
/// over HTTP GET (lists over GET, experimental) — the result and whether the server answered
/// `304` to the tag the inspector kept from the last time.
pub async fn list_over_get(Served(session): Served, Path(ListPath { list }): Path<ListPath>) -> Response {
    let Some(kind) = ListKind::from_selector(&list) else {
        let why = format!("{list:?} is not a list (tools, prompts, resources, resource-templates)");
        return refused(StatusCode::BAD_REQUEST, why);
    };
    with_client(&session, |client| async move {
        answer(
            client
                .list_over_get(kind, None)
                .await
                .map(|page| json!({"result": page.result, "revalidated": page.revalidated})),
        )
    })
    .await
}

/// What `POST …/request` takes: any request the page sends again (the history's replay).
#[derive(Deserialize)]
pub struct Replayed {
    method: String,
    #[serde(default)]
    params: Value,
}

/// `POST …/request`: sends `method` with `params` (the era's `_meta` added by the client),
/// answering with the server's raw result or its refusal.
pub async fn request(Served(session): Served, Json(replayed): Json<Replayed>) -> Response {
    with_client(&session, |client| async move {
        answer(client.request(replayed.method.as_str(), replayed.params).await)
    })
    .await
}

/// `POST …/ping`: how long the server takes to answer `ping` (`server/discover` in
/// 2026-07-28, which has no `ping`).
pub async fn ping(Served(session): Served) -> Response {
    with_client(&session, |client| async move {
        let started = std::time::Instant::now();
        let pinged = client.ping().await;
        answer(pinged.map(|()| json!({"milliseconds": started.elapsed().as_secs_f64() * 1000.0})))
    })
    .await
}

/// What `POST …/log-level` takes.
#[derive(Deserialize)]
pub struct LogLevel {
    level: LoggingLevel,
}

/// `POST …/log-level`: asks for the server's log messages at `level` and above (each
/// 2026-07-28 request carries it; a 2025-11-25 session sets it with `logging/setLevel`).
pub async fn log_level(Served(session): Served, Json(wanted): Json<LogLevel>) -> Response {
    with_client(&session, |client| async move {
        answer(client.set_log_level(wanted.level).await.map(|()| json!({"level": wanted.level})))
    })
    .await
}

/// `GET …/tools`: each with `taskSupport`, whether calls of it may run as tasks here
/// (`forbidden`, `optional` or `required`).
pub async fn tools(Served(session): Served) -> Response {
    with_client(&session, |client| async move {
        let listed = client.list_tools().await.map(|tools| {
            tools
                .into_iter()
                .map(|tool| {
                    let support = client.task_support(&tool.name);
                    let mut shown = serde_json::to_value(tool).unwrap_or_default();
                    shown["taskSupport"] = json!(support);
                    shown
                })
                .collect::<Vec<_>>()
        });
        answer(listed)
    })
    .await
}

/// What `POST …/tools/call` and `POST …/tasks/start` take.
#[derive(Deserialize)]
pub struct ToolCall {
    name: String,
    #[serde(default)]
    arguments: Value,
}

impl ToolCall {
    /// The tool's name and its arguments (none given: an empty object).
    pub fn parts(self) -> (String, Value) {
        let arguments = if self.arguments.is_null() { json!({}) } else { self.arguments };
        (self.name, arguments)
    }
}

/// A tool's result as the page shows it: its content, its structured content and whether it
/// is a tool error.
pub fn call_json(result: CallToolResult) -> Value {
    json!({"content": result.content, "structuredContent": result.structured_content, "isError": result.is_error})
}

/// `POST …/tools/call`: the call, its progress reported as events.
pub async fn call_tool(Served(session): Served, Json(call): Json<ToolCall>) -> Response {
    let reporting = Arc::clone(&session);
    with_client(&session, |client| async move { call_reporting(&reporting, &client, call).await }).await
}

/// Calls the tool, its progress reported as events.
async fn call_reporting(session: &Arc<Session>, client: &Client, call: ToolCall) -> Response {
    let (name, arguments) = call.parts();
    let session = Arc::clone(session);
    let tool = name.clone();
    let report = move |progress: modelctx::client::Progress| {
        let event = json!({"kind": "progress", "tool": tool, "progress": progress.progress,
                           "total": progress.total, "message": progress.message});
        session.emit(event);
    };
    answer(client.call_tool_with_progress(&name, arguments, report).await.map(call_json))
}

/// `GET …/resources`: the resources and the templates.
pub async fn resources(Served(session): Served) -> Response {
    with_client(&session, |client| async move {
        let listed = async {
            let resources = client.list_resources().await?;
            let templates = client.list_resource_templates().await?;
            Ok(json!({"resources": resources, "templates": templates}))
        };
        answer(listed.await)
    })
    .await
}

/// What `POST …/resources/read` takes.
#[derive(Deserialize)]
pub struct Read {
    uri: String,
}

/// `POST …/resources/read`.
pub async fn read_resource(Served(session): Served, Json(read): Json<Read>) -> Response {
    with_client(&session, |client| async move { answer(client.read_resource(&read.uri).await) }).await
}

/// `POST …/resources/subscribe`: follows the resource (`{"result": {"uris": [...]}}` once the
/// server acknowledged it); each update comes as a `resource-updated` event.
pub async fn subscribe(Served(session): Served, Json(read): Json<Read>) -> Response {
    let following = Arc::clone(&session);
    with_client(&session, |client| async move {
        match following.subscriptions.follow(&following, client, read.uri.clone()).await {
            Ok(()) => Json(json!({"result": {"uris": following.subscriptions.uris()}})).into_response(),
            Err(Refused::Already) => {
                refused(StatusCode::CONFLICT, format!("{} is followed already", read.uri))
            }
            Err(Refused::Full) => refused(
                StatusCode::TOO_MANY_REQUESTS,
                format!("{MAX_SUBSCRIPTIONS} resources are followed, the most at once: stop one first"),
            ),
            Err(Refused::Server(why)) => Json(json!({"error": why})).into_response(),
        }
    })
    .await
}

/// `POST …/resources/unsubscribe`: stops following the resource (a 2025-11-25 session also
/// sends `resources/unsubscribe`); `404` when it was not followed.
pub async fn unsubscribe(Served(session): Served, Json(read): Json<Read>) -> Response {
    if !session.subscriptions.end(&read.uri) {
        return refused(StatusCode::NOT_FOUND, format!("{} is not followed", read.uri));
    }
    let following = Arc::clone(&session);
    with_client(&session, |client| async move {
        if client.era() == Era::Legacy {
            let unsubscribed = client.request("resources/unsubscribe", json!({"uri": read.uri})).await;
            if let Err(error) = unsubscribed {
                return Json(json!({"error": error.to_string()})).into_response();
            }
        }
        Json(json!({"result": {"uris": following.subscriptions.uris()}})).into_response()
    })
    .await
}

/// `GET …/prompts`.
pub async fn prompts(Served(session): Served) -> Response {
    with_client(&session, |client| async move { answer(client.list_prompts().await) }).await
}

/// What `POST …/prompts/get` takes.
#[derive(Deserialize)]
pub struct GetPrompt {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// `POST …/prompts/get`.
pub async fn get_prompt(Served(session): Served, Json(get): Json<GetPrompt>) -> Response {
    let arguments = if get.arguments.is_null() { json!({}) } else { get.arguments };
    with_client(&session, |client| async move { answer(client.get_prompt(&get.name, arguments).await) }).await
}

/// The path's question number.
#[derive(Deserialize)]
pub struct Question {
    id: u64,
}

/// What `POST …/elicitations/{id}` takes: what the person did, and the form's values.
#[derive(Deserialize)]
pub struct ElicitationAnswer {
    action: ElicitAction,
    #[serde(default)]
    content: Option<std::collections::BTreeMap<String, ElicitValue>>,
}

/// `POST …/elicitations/{id}`: `404` when no elicitation waits under that id.
pub async fn answer_elicitation(
    Served(session): Served,
    Path(Question { id }): Path<Question>,
    Json(given): Json<ElicitationAnswer>,
) -> StatusCode {
    let content = given.content.filter(|_| given.action == ElicitAction::Accept);
    if session.answer(id, ElicitResult { action: given.action, content }) {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::NOT_FOUND
    }
}

/// What `POST …/samplings/{id}` takes: the person's answer as the model; none, or only
/// blanks, declines.
#[derive(Deserialize)]
pub struct SamplingAnswer {
    #[serde(default)]
    text: Option<String>,
}

/// `POST …/samplings/{id}`: `404` when no sampling request waits under that id.
pub async fn answer_sampling(
    Served(session): Served,
    Path(Question { id }): Path<Question>,
    Json(given): Json<SamplingAnswer>,
) -> StatusCode {
    let text = given.text.filter(|text| !text.trim().is_empty());
    if session.answer_sampling(id, text) { StatusCode::NO_CONTENT } else { StatusCode::NOT_FOUND }
}

/// `GET …/events`: every event so far, then each as it happens.
pub async fn events(Served(session): Served) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (history, live) = session.subscribe();
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
