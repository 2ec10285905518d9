//! `modelctx inspect --web 127.0.0.1:PORT [target]`: a web page, served by this binary (its
//! assets are compiled in; nothing runs Node), to look at servers: connected from the page (a
//! command, a URL or a config file's server, in either era; several at once) or named on the
//! command line; their discover or initialize results, tools called from forms made of their
//! input schemas (a tool's app framed and bridged), OAuth logins step by step, tasks, roots, skills, resources and
//! prompts, elicitations and sampling requests answered in the page, and every JSON-RPC
//! message of each session as it happens.
//!
//! The page and its API are bound to loopback only and open only with the random token in
//! the URL printed on the first line of standard output (the MCP Inspector's own
//! vulnerability was an unauthenticated local proxy); what else a request must show is
//! [`gate`]'s: a page of another origin can neither guess the token nor forge the page's own
//! requests, so neither cross-site requests nor DNS rebinding spawn anything.

mod api;
mod apps;
mod bench;
mod gate;
mod oauth;
mod roots;
mod servers;
mod session;
mod skills;
mod subscriptions;
mod tasks;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use clap::Args;

use super::Target;
use crate::run_token::random_token;
use gate::Gate;
use servers::Servers;

/// Arguments of `modelctx inspect`.
#[derive(Args)]
pub struct InspectArgs {
    /// Serve the inspector's page at http://ADDR/ (a loopback address; port 0 picks a free
    /// one); the URL to open, with its token, is the first line of standard output. A server
    /// named here is open when the page opens; the page connects to others.
    #[arg(long, value_name = "ADDR")]
    web: SocketAddr,
    #[command(flatten)]
    target: Target,
}

/// What every request of the page shares.
struct Inspector {
    /// The servers open.
    servers: Servers,
    /// Who may use them.
    gate: Gate,
    /// Apps' documents waiting to be framed.
    views: apps::Views,
    /// The logins running.
    logins: oauth::Logins,
}

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = "text/javascript; charset=utf-8";
/// The page's scripts and style sheet: the path each is loaded from, its text and its type.
/// They hold no secret and are served without the token (the page that loads them has it).
const ASSETS: [(&str, &str, &str); 7] = [
    ("/app.js", include_str!("assets/app.js"), SCRIPT),
    ("/tasks.js", include_str!("assets/tasks.js"), SCRIPT),
    ("/roots.js", include_str!("assets/roots.js"), SCRIPT),
    ("/skills.js", include_str!("assets/skills.js"), SCRIPT),
    ("/apps.js", include_str!("assets/apps.js"), SCRIPT),
    ("/oauth.js", include_str!("assets/oauth.js"), SCRIPT),
    ("/style.css", include_str!("assets/style.css"), "text/css; charset=utf-8"),
];

/// Whether `path` is one of the page's [`ASSETS`].
fn is_asset(path: &str) -> bool {
    ASSETS.iter().any(|(asset, ..)| *asset == path)
}

/// Serves the page until SIGTERM or Ctrl-C: exit 0 then; 2 for an address that is not
/// loopback; 3 when the address cannot be bound.
pub fn run(args: &InspectArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    if !args.web.ip().is_loopback() {
        eprintln!(
            "--web binds loopback addresses only (127.0.0.1 or ::1): the page drives a server with your rights"
        );
        return ExitCode::from(2);
    }
    let Some(runtime) = modelctx_servers::process::serving_runtime(None) else { return ExitCode::FAILURE };
    let outcome = runtime.block_on(serve(args));
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("the inspector cannot serve on {}: {e}", args.web);
            ExitCode::from(3)
        }
    }
}

async fn serve(args: &InspectArgs) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(args.web).await?;
    let address = listener.local_addr()?;
    let gate = Gate::new(random_token()?, address);
    // The first line of standard output, for a person to open and for scripts to read.
    println!("http://{address}/?token={}", gate.token());
    let inspector = Arc::new(Inspector {
        servers: Servers::default(),
        gate,
        views: apps::Views::default(),
        logins: oauth::Logins::default(),
    });
    let target = &args.target;
    if target.url.is_some() || target.config.is_some() || !target.command.is_empty() {
        inspector.servers.open(target.clone());
    }
    axum::serve(listener, router(inspector)).with_graceful_shutdown(modelctx::transport::terminated()).await
}

fn router(inspector: Arc<Inspector>) -> Router {
    let server = Router::new()
        .route("/", get(api::session).delete(api::close))
        .route("/card", get(api::card))
        .route("/request", post(api::request))
        .route("/ping", post(api::ping))
        .route("/log-level", post(api::log_level))
        .route("/list-over-get/{list}", get(api::list_over_get))
        .route("/tools", get(api::tools))
        .route("/tools/call", post(api::call_tool))
        .route("/resources", get(api::resources))
        .route("/resources/read", post(api::read_resource))
        .route("/resources/subscribe", post(api::subscribe))
        .route("/resources/unsubscribe", post(api::unsubscribe))
        .route("/prompts", get(api::prompts))
        .route("/prompts/get", post(api::get_prompt))
        .route("/elicitations/{id}", post(api::answer_elicitation))
        .route("/samplings/{id}", post(api::answer_sampling))
        .route("/tasks", get(tasks::list))
        .route("/tasks/start", post(tasks::start))
        .route("/tasks/{id}", get(tasks::get))
        .route("/tasks/{id}/cancel", post(tasks::cancel))
        .route("/tasks/{id}/result", post(tasks::result))
        .route("/roots", get(roots::list).post(roots::add))
        .route("/roots/remove", post(roots::remove))
        .route("/skills", get(skills::list))
        .route("/skills/load", post(skills::load))
        .route("/skills/file", post(skills::file))
        .route("/apps/open", post(apps::open))
        .route("/events", get(api::events))
        .route("/bench", post(api::bench));
    let api = Router::new()
        .route("/servers", get(api::servers).post(api::open))
        .route("/config", post(api::config))
        .route("/login", post(oauth::start))
        .route("/login/{flow}", get(oauth::finish))
        .nest("/servers/{server}", server);
    let page = ASSETS.into_iter().fold(Router::new().route("/", get(index)), |page, (path, body, kind)| {
        page.route(path, get(move || asset(body, kind)))
    });
    page.route(&format!("{}{{id}}", gate::APP_VIEWS), get(apps::view))
        .route(gate::OAUTH_CALLBACK, get(oauth::callback))
        .nest("/api", api)
        .layer(middleware::from_fn_with_state(Arc::clone(&inspector), guard))
        .with_state(inspector)
}

/// Lets through only what [`Gate`] allows, and marks every answer not to be cached or framed.
async fn guard(State(inspector): State<Arc<Inspector>>, request: Request, next: Next) -> Response {
    if let Err(refusal) = inspector.gate.check(&request) {
        return refusal.into_response();
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // An app's document comes with its own policy and framing (`apps::view`).
    headers.entry(header::X_FRAME_OPTIONS).or_insert(HeaderValue::from_static("DENY"));
    headers.entry(header::CONTENT_SECURITY_POLICY).or_insert(HeaderValue::from_static(
        "default-src 'self'; img-src 'self' data:; media-src 'self' data:",
    ));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

async fn index() -> Html<&'static str> {
    Html(INDEX)
}

async fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}
