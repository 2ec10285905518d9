//! `modelctx inspect --web 127.0.0.1:PORT [target]`: a web page, served by this binary (its
//! assets are compiled in; nothing runs Node), to look at one server: its discover or
//! initialize result, its tools called from forms made of their input schemas, its resources
//! and prompts, its elicitations answered in the page, and every JSON-RPC message of the
//! session as it happens.
//!
//! The page and its API are bound to loopback only and open only with the random token in
//! the URL printed on the first line of standard output (the MCP Inspector's own
//! vulnerability was an unauthenticated local proxy): a page of another origin cannot guess
//! it, so neither cross-site requests nor DNS rebinding reach the server the inspector drives.

mod api;
mod session;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use clap::Args;

use super::Target;
use crate::run_token::{random_token, same};
use session::Session;

/// Arguments of `modelctx inspect`.
#[derive(Args)]
pub struct InspectArgs {
    /// Serve the inspector's page at http://ADDR/ (a loopback address; port 0 picks a free
    /// one); the URL to open, with its token, is the first line of standard output.
    #[arg(long, value_name = "ADDR")]
    web: SocketAddr,
    #[command(flatten)]
    target: Target,
}

/// What every request of the page shares.
struct Inspector {
    session: Arc<Session>,
    /// The Streamable HTTP endpoint driven, when the target is a URL: where its card is.
    endpoint: Option<String>,
    /// The secret the page's URL carries, 32 random bytes in hex.
    token: String,
}

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");

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
    let Some(runtime) = crate::runtime::for_serving(None) else { return ExitCode::FAILURE };
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
    let token = random_token()?;
    let session = Session::new(args.target.describe());
    let endpoint = args.target.url.clone();
    let inspector = Arc::new(Inspector { session: Arc::clone(&session), endpoint, token });
    // The first line of standard output, for a person to open and for scripts to read.
    println!("http://{address}/?token={}", inspector.token);
    let target = args.target.clone();
    tokio::spawn(async move {
        let handlers = session.handlers();
        let tap = session.tap();
        let connected = session
            .connect(async { target.connect_tapped(handlers, Some(tap)).await.map_err(|e| e.to_string()) });
        if let Ok(client) = connected.await {
            api::forward_notifications(&session, client);
        }
    });
    axum::serve(listener, router(inspector)).with_graceful_shutdown(modelctx::transport::terminated()).await
}

fn router(inspector: Arc<Inspector>) -> Router {
    let api = Router::new()
        .route("/session", get(api::session))
        .route("/card", get(api::card))
        .route("/request", post(api::request))
        .route("/ping", post(api::ping))
        .route("/log-level", post(api::log_level))
        .route("/list-over-get/{list}", get(api::list_over_get))
        .route("/tools", get(api::tools))
        .route("/tools/call", post(api::call_tool))
        .route("/resources", get(api::resources))
        .route("/resources/read", post(api::read_resource))
        .route("/prompts", get(api::prompts))
        .route("/prompts/get", post(api::get_prompt))
        .route("/elicitations/{id}", post(api::answer_elicitation))
        .route("/samplings/{id}", post(api::answer_sampling))
        .route("/events", get(api::events));
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(|| asset(SCRIPT, "text/javascript; charset=utf-8")))
        .route("/style.css", get(|| asset(STYLE, "text/css; charset=utf-8")))
        .nest("/api", api)
        .layer(middleware::from_fn_with_state(Arc::clone(&inspector), guard))
        .with_state(inspector)
}

/// Lets through only requests that carry the token (in `?token=` or `X-Inspector-Token`),
/// except for the page's static assets, and marks every answer not to be cached or framed.
async fn guard(State(inspector): State<Arc<Inspector>>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let public = matches!(path, "/app.js" | "/style.css");
    let given = request
        .headers()
        .get("x-inspector-token")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| query_token(request.uri().query()));
    if !public && !given.is_some_and(|given| same(&given, &inspector.token)) {
        return (
            StatusCode::UNAUTHORIZED,
            "open the URL modelctx inspect printed: it carries the token this page needs\n",
        )
            .into_response();
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; img-src 'self' data:; media-src 'self' data:"),
    );
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// The `token` of a query string.
fn query_token(query: Option<&str>) -> Option<String> {
    query?.split('&').find_map(|pair| pair.strip_prefix("token=")).map(str::to_owned)
}

async fn index() -> Html<&'static str> {
    Html(INDEX)
}

async fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_found_in_the_query() {
        assert_eq!(query_token(Some("a=1&token=abc")), Some("abc".into()));
        assert_eq!(query_token(Some("tokens=abc")), None);
    }
}
