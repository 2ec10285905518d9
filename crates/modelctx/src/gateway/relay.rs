//! What a backend asks of the gateway — elicitation, sampling, roots — asked in turn of the
//! gateway's own client, through the request that caused it.
//!
//! Every backend call the gateway makes runs inside [`on_behalf_of`], which keeps the
//! inbound request's context in a task-local. A 2026-07-28 backend asks by answering
//! `input_required`; the gateway's client then runs these handlers in that same task, so each
//! question finds the request it belongs to and is asked through it — as a round of input of
//! its own (a 2026-07-28 inbound request: the handler stops here and runs again from the
//! start with the answers, under the backend's own `inputRequests` keys) or as a live request
//! on the session (2025-11-25).
//!
//! A 2025-11-25 backend asks by a live request. Over Streamable HTTP it comes on the response
//! stream of the call it belongs to, which the gateway's client reads in that call's task: it
//! finds its inbound request as a 2026-07-28 backend's question does, however many calls are
//! in flight. A question of a backend task names its task (`related-task`): it goes to the
//! inbound request that task is followed for — a task of the gateway's too, which holds the
//! question for its client in either era. Over stdio nothing else ties a question to a call: it
//! is asked of the inbound request of the one call in flight to that backend, when there is
//! exactly one and its client speaks 2025-11-25 too (a live question can wait for a live
//! answer; a 2026-07-28 request, answered in rounds, cannot hold it open). Any other question
//! with no inbound request to carry it is declined, and sampling and roots fail with `-32603`
//! saying so.

use std::future::Future;

use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::ElicitRequest;
use modelctx_protocol::types::{ElicitAction, Root};
use modelctx_protocol::v2026::{CreateMessageRequestParams, CreateMessageResult, ElicitResult};

use std::sync::Arc;

use modelctx_protocol::Era;

use super::in_flight::InFlight;
use crate::client::{ClientHandlers, OnBehalf, input_key, on_behalf, related_task};
use crate::host::HandlersFor;
use crate::server::{InputError, RequestContext};

tokio::task_local! {
    /// The inbound request a backend call is made for.
    static INBOUND: RequestContext;
}

/// Runs `work` (calls to backends) on behalf of the inbound request `ctx`: its requests carry
/// the inbound client's capabilities and log level, so that a 2026-07-28 backend asks only
/// what that client can answer (a 2025-11-25 backend knows the gateway's own, from
/// `initialize`), and what the backends ask meanwhile is asked through it. A backend may run
/// a call as a task only when the inbound call runs as one or may become one (`calls.rs`).
pub(super) async fn on_behalf_of<T>(ctx: RequestContext, work: impl Future<Output = T>) -> T {
    let mut capabilities = ctx.client_capabilities().clone();
    // Extensions are the gateway's business with each backend, not its client's.
    capabilities.extensions = None;
    let behalf = OnBehalf {
        capabilities: Some(capabilities),
        log_level: ctx.log_level(),
        tasks: ctx.may_become_task(),
    };
    INBOUND.scope(ctx, on_behalf(behalf, work)).await
}

/// Where a question of backend `server` goes: the inbound request of the running backend call
/// (a 2026-07-28 backend's question comes in its task), else that of the backend task the
/// question names (a 2025-11-25 task's), else that of the one call in flight to `server` when
/// that call's client speaks 2025-11-25.
#[derive(Clone)]
struct Asking {
    server: String,
    in_flight: Arc<InFlight>,
}

impl Asking {
    fn inbound(&self) -> Option<RequestContext> {
        INBOUND
            .try_with(RequestContext::clone)
            .ok()
            .or_else(|| related_task().and_then(|task| self.in_flight.for_task(&self.server, &task)))
            .or_else(|| self.in_flight.sole(&self.server).filter(|ctx| ctx.era() == Era::Legacy))
    }
}

/// The handlers every backend's client gets: each question goes to the inbound request.
pub(super) fn handlers(in_flight: Arc<InFlight>) -> HandlersFor {
    HandlersFor::new(move |server| {
        let asking = Asking { server: server.to_owned(), in_flight: Arc::clone(&in_flight) };
        let (for_elicit, for_sampling, for_roots) = (asking.clone(), asking.clone(), asking);
        ClientHandlers::default()
            .on_elicit(move |request| elicit(for_elicit.clone(), request))
            .on_sample(move |params| sample(for_sampling.clone(), params))
            .sampling_tools()
            .on_roots(move || roots(for_roots.clone()))
    })
}

/// `ctx`'s question under the backend's `inputRequests` key, when the backend gave one.
macro_rules! ask {
    ($ctx:expr, $method:ident($($arg:expr),*)) => {
        match input_key() {
            Some(key) => $ctx.question(&key).$method($($arg),*).await,
            None => $ctx.$method($($arg),*).await,
        }
    };
}

async fn elicit(asking: Asking, request: ElicitRequest) -> ElicitResult {
    let declined = ElicitResult { action: ElicitAction::Decline, content: None };
    let Some(ctx) = asking.inbound() else {
        tracing::warn!(
            "a backend asked for elicitation outside a call it could be relayed through; declined"
        );
        return declined;
    };
    match ask!(ctx, elicit(request)) {
        Ok(answer) => answer,
        Err(error) => {
            tracing::debug!(%error, "the gateway's client did not answer a backend's elicitation; declined");
            declined
        }
    }
}

async fn sample(
    asking: Asking,
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, ErrorObject> {
    let server = &asking.server;
    let ctx = asking.inbound().ok_or_else(|| unrelated(server, "sampling"))?;
    ask!(ctx, sample(params)).map_err(|error| refused(server, "sampling", &error))
}

async fn roots(asking: Asking) -> Vec<Root> {
    let server = &asking.server;
    let Some(ctx) = asking.inbound() else {
        // A 2025-11-25 backend may ask as soon as it connects: the gateway itself has none.
        tracing::debug!(%server, "a backend asked for roots outside a call it could be relayed through");
        return Vec::new();
    };
    ask!(ctx, list_roots()).unwrap_or_else(|error| {
        tracing::debug!(%server, %error, "the gateway's client did not list its roots");
        Vec::new()
    })
}

fn unrelated(server: &str, what: &str) -> ErrorObject {
    ErrorObject::internal(format!(
        "the gateway cannot relay {what} asked by {server} outside a call made through it"
    ))
}

/// The error a backend gets when the gateway's client refused or could not answer.
fn refused(server: &str, what: &str, error: &InputError) -> ErrorObject {
    match error {
        InputError::Client(error) => error.clone(),
        other => ErrorObject::internal(format!("the gateway's client gave no {what} for {server}: {other}")),
    }
}
