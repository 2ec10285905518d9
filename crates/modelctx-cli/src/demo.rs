//! `modelctx demo`: the `everything` server over stdio (a child process) and over Streamable
//! HTTP (on a loopback port, in this process), driven by modelctx's client through every
//! feature, printed as a short tour with timings. Any step that goes wrong fails the demo
//! (exit 1), so it doubles as a smoke test of a fresh build.

use std::collections::BTreeMap;
use std::future::Future;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use modelctx::client::{Client, ClientHandlers, ClientOptions, EraMode, StdioCommand};
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::{ContentBlock, ElicitAction, ElicitValue, Implementation, TextOrBlob};
use modelctx::protocol::v2026::{ElicitResult, SubscriptionFilter};
use modelctx::transport::http::{HttpOptions, MCP_PATH};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::inspect::output::{BOLD, DIM, GREEN, RED, out};
use modelctx_servers as servers;

/// What the automatic elicitation answer puts in every text field.
const DEMO_NAME: &str = "Ada";

/// How long the change notification may take to arrive.
const NOTIFICATION_WAIT: Duration = Duration::from_secs(10);

/// The width of what a step shows.
const SHOWN_WIDTH: usize = 60;

type StepResult = Result<String, String>;

/// `text` cut to `width` characters, with an ellipsis when cut.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut clipped: String = text.chars().take(width - 1).collect();
    clipped.push('…');
    clipped
}

/// Counts the steps and whether any failed.
#[derive(Default)]
struct Tour {
    failed: usize,
    steps: usize,
}

impl Tour {
    fn section(&self, title: &str) {
        out!("\n{BOLD}{title}{BOLD:#}");
    }

    /// Runs one step and prints what it showed, with its time.
    async fn step(&mut self, name: &str, work: impl Future<Output = StepResult>) {
        self.steps += 1;
        let started = Instant::now();
        let outcome = work.await;
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        match outcome {
            Ok(shown) => {
                let shown = clip(&shown, SHOWN_WIDTH);
                out!("  {GREEN}✓{GREEN:#} {name:<31} {shown:<SHOWN_WIDTH$} {DIM}{millis:>7.1} ms{DIM:#}");
            }
            Err(why) => {
                self.failed += 1;
                out!("  {RED}✗ {name:<28} {why}{RED:#}");
            }
        }
    }
}

/// The first text block of content.
fn first_text(content: &[ContentBlock]) -> String {
    content
        .iter()
        .find_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

fn options(mode: EraMode) -> ClientOptions {
    let mut options = ClientOptions::new(Implementation::new("modelctx-demo", env!("CARGO_PKG_VERSION")));
    options.mode = mode;
    options.handlers =
        ClientHandlers::default().on_elicit(|request| async move { answer_automatically(request) });
    options
}

/// Fills every field of a form: the demo name in text fields, the first choice, the
/// default, or true.
fn answer_automatically(request: ElicitRequest) -> ElicitResult {
    let ElicitRequest::Form { requested_schema, .. } = request else {
        return ElicitResult { action: ElicitAction::Decline, content: None };
    };
    let content: BTreeMap<String, ElicitValue> = requested_schema
        .properties
        .into_iter()
        .map(|(name, field)| {
            let field = serde_json::to_value(field).unwrap_or_default();
            let value = match field.get("type").and_then(Value::as_str) {
                Some("boolean") => ElicitValue::Boolean(true),
                Some("number" | "integer") => ElicitValue::Number(42.into()),
                _ => match field.get("enum").and_then(|e| e.get(0)).and_then(Value::as_str) {
                    Some(choice) => ElicitValue::String(choice.to_owned()),
                    None => ElicitValue::String(DEMO_NAME.to_owned()),
                },
            };
            (name, value)
        })
        .collect();
    ElicitResult { action: ElicitAction::Accept, content: Some(content) }
}

fn show<E: std::fmt::Display>(error: E) -> String {
    error.to_string()
}

/// The text of resource `uri`.
async fn read_text(client: &Client, uri: &str) -> StepResult {
    match client.read_resource(uri).await.map_err(show)?.first() {
        Some(TextOrBlob::Text(text)) => Ok(text.text.clone()),
        _ => Err(format!("{uri} has no text")),
    }
}

/// Discovery, tools, resources, prompts, completion, progress and elicitation over one
/// connection.
async fn tour_connection(tour: &mut Tour, client: &Client) {
    tour.step("tools/list", async {
        let tools = client.list_tools().await.map_err(show)?;
        Ok(format!("{} tools", tools.len()))
    })
    .await;
    tour.step("tools/call add a=2 b=40", async {
        let sum = client.call_tool("add", json!({"a": 2, "b": 40})).await.map_err(show)?;
        let structured = sum.structured_content.ok_or("no structured content")?;
        Ok(format!("structuredContent {structured}, checked against outputSchema"))
    })
    .await;
    tour.step("tools/call add a=\"two\"", async {
        let refused = client.call_tool("add", json!({"a": "two", "b": 1})).await.map_err(show)?;
        if refused.is_error != Some(true) {
            return Err("invalid arguments were accepted".into());
        }
        let text = first_text(&refused.content);
        Ok(format!("tool error: {text}"))
    })
    .await;
    tour.step("progress", async {
        let reports = Arc::new(Mutex::new(0));
        let counted = reports.clone();
        let done = client
            .call_tool_with_progress(
                "long_running_operation",
                json!({"steps": 3, "step_ms": 20}),
                move |_| {
                    *counted.lock().unwrap() += 1;
                },
            )
            .await
            .map_err(show)?;
        let reports = *reports.lock().unwrap();
        Ok(format!("{reports} progress reports, then \"{}\"", first_text(&done.content)))
    })
    .await;
    tour.step("elicitation (answered)", async {
        let greeted =
            client.call_tool("test_input_required_result_elicitation", json!({})).await.map_err(show)?;
        let how = match client.era() {
            modelctx::protocol::Era::Modern => "input_required, retried",
            modelctx::protocol::Era::Legacy => "live request",
        };
        Ok(format!("\"{}\" ({how})", first_text(&greeted.content)))
    })
    .await;
    tour.step("resources/list + read", async {
        let resources = client.list_resources().await.map_err(show)?;
        let text = read_text(client, "everything://readme").await?;
        Ok(format!("{} resources; readme: \"{text}\"", resources.len()))
    })
    .await;
    tour.step("template everything://items/42", async {
        let templates = client.list_resource_templates().await.map_err(show)?;
        let text = read_text(client, "everything://items/42").await?;
        Ok(format!("{} templates; {text}", templates.len()))
    })
    .await;
    tour.step("prompts/get greeting", async {
        let messages = client.get_prompt("greeting", json!({"name": DEMO_NAME})).await.map_err(show)?;
        let text =
            messages.first().map(|m| crate::inspect::content::block_text(&m.content)).unwrap_or_default();
        Ok(format!("\"{text}\""))
    })
    .await;
    tour.step("completion/complete", async {
        let colours = client
            .complete(
                json!({"type": "ref/prompt", "name": "greeting"}),
                json!({"name": "color", "value": "b"}),
                None,
            )
            .await
            .map_err(show)?;
        let ids = client
            .complete(
                json!({"type": "ref/resource", "uri": "everything://items/{id}"}),
                json!({"name": "id", "value": "99"}),
                None,
            )
            .await
            .map_err(show)?;
        Ok(format!("color=b → {:?}; id=99 → {} values", colours.values, ids.values.len()))
    })
    .await;
}

/// A listener hears the tool list change that another client causes.
async fn tour_notifications(tour: &mut Tour, url: &str, mode: EraMode) {
    tour.step("change notifications", async {
        let listener = Client::connect_http(url, Default::default(), options(mode)).await.map_err(show)?;
        let changes = listener
            .listen(SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() })
            .await
            .map_err(show)?;
        let mut changes = std::pin::pin!(changes);
        let trigger = Client::connect_http(url, Default::default(), options(mode)).await.map_err(show)?;
        trigger.call_tool("test_trigger_tool_change", json!({})).await.map_err(show)?;
        let note = tokio::time::timeout(NOTIFICATION_WAIT, changes.next())
            .await
            .map_err(|_| "no notification within 10 s".to_owned())?
            .ok_or("the subscription ended")?;
        let how = if mode == EraMode::Modern { "subscriptions/listen" } else { "the session's GET stream" };
        Ok(format!("{} via {how}", note.method))
    })
    .await;
}

async fn run_tour() -> Tour {
    let mut tour = Tour::default();
    out!("{BOLD}modelctx demo{BOLD:#}: the bundled `everything` server, driven by modelctx's client");
    let exe = std::env::current_exe().unwrap_or_else(|_| "modelctx".into());
    let command = StdioCommand::new(&exe).args(["serve", "everything"]);
    for (mode, label) in
        [(EraMode::Auto, "2026-07-28, stateless"), (EraMode::Legacy, "2025-11-25, initialize")]
    {
        tour.section(&format!("stdio ({label}): a child process `modelctx serve everything`"));
        let mut client = None;
        tour.step(if mode == EraMode::Auto { "server/discover" } else { "initialize" }, async {
            let connected = Client::spawn(&command, options(mode)).await.map_err(show)?;
            let info = connected.server().info.clone().map(|i| format!("{} {}", i.name, i.version));
            let shown = format!("{} — {}", connected.server().version, info.unwrap_or_default());
            client = Some(connected);
            Ok(shown)
        })
        .await;
        if let Some(client) = client {
            tour_connection(&mut tour, &client).await;
            let pid = client.server_pid();
            tour.step("close", async {
                client.close().await;
                Ok(format!("EOF to pid {}, exited and reaped", pid.unwrap_or_default()))
            })
            .await;
        }
    }
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(e) => {
            out!("  {RED}✗ cannot listen on 127.0.0.1: {e}{RED:#}");
            tour.failed += 1;
            return tour;
        }
    };
    let url =
        format!("http://{}{MCP_PATH}", listener.local_addr().map(|a| a.to_string()).unwrap_or_default());
    let stop = CancellationToken::new();
    let server = match servers::everything::builder().build() {
        Ok(server) => server,
        Err(e) => {
            out!("  {RED}✗ the everything server does not build: {e}{RED:#}");
            tour.failed += 1;
            return tour;
        }
    };
    let serving = tokio::spawn(modelctx::transport::http::serve_http(
        server,
        listener,
        HttpOptions::default(),
        stop.clone().cancelled_owned(),
    ));
    for (mode, label) in
        [(EraMode::Auto, "2026-07-28, stateless"), (EraMode::Legacy, "2025-11-25, a session")]
    {
        tour.section(&format!("Streamable HTTP ({label}): {url}"));
        let mut client = None;
        tour.step(if mode == EraMode::Auto { "server/discover" } else { "initialize" }, async {
            let connected =
                Client::connect_http(&url, Default::default(), options(mode)).await.map_err(show)?;
            let shown = format!("{} over HTTP", connected.server().version);
            client = Some(connected);
            Ok(shown)
        })
        .await;
        if let Some(client) = client {
            tour_connection(&mut tour, &client).await;
            client.close().await;
        }
        tour_notifications(&mut tour, &url, if mode == EraMode::Auto { EraMode::Modern } else { mode }).await;
    }
    stop.cancel();
    let _ = serving.await;
    tour
}

/// Runs the demo: exit 0 when every step worked, 1 otherwise.
pub fn run() -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    let started = Instant::now();
    let tour = match crate::runtime::block_on(run_tour()) {
        Ok(tour) => tour,
        Err(failure) => return failure.exit(),
    };
    let seconds = started.elapsed().as_secs_f64();
    if tour.failed == 0 {
        out!(
            "\n{GREEN}All {} steps worked{GREEN:#} in {seconds:.2} s. Next: `modelctx tools list -- modelctx serve everything`, or `--help`.",
            tour.steps
        );
        ExitCode::SUCCESS
    } else {
        out!("\n{RED}{} of {} steps failed{RED:#} in {seconds:.2} s.", tour.failed, tour.steps);
        ExitCode::FAILURE
    }
}
