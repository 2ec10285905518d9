//! An audit hook: one record per request the layer saw, when it ends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use modelctx_protocol::jsonrpc::{ErrorObject, RequestId};
use modelctx_protocol::{Era, Method};
use tower::Layer;

use super::McpRequest;
use super::guard::{Guard, Guarded};
use crate::server::Answer;

/// What became of an audited request.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AuditOutcome {
    /// It was answered with a result (a tool's `isError` result among them).
    Answered,
    /// It was answered with this JSON-RPC error.
    Failed(ErrorObject),
    /// It ended unanswered: cancelled by the client, its transport, shutdown or its time
    /// limit.
    Cancelled,
}

/// One request, as the audit hook sees it when it ends.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The request's method.
    pub method: Method,
    /// The tool, prompt or resource URI the request was about ([`McpRequest::target`]).
    pub target: Option<String>,
    /// The request's id.
    pub request_id: RequestId,
    /// The request's era.
    pub era: Era,
    /// The client's name, as it gives it.
    pub client: Option<String>,
    /// From the request reaching this layer to its end.
    pub elapsed: Duration,
    /// How it ended.
    pub outcome: AuditOutcome,
}

type Hook = Arc<dyn Fn(&AuditRecord) + Send + Sync>;

/// A layer that calls `hook` with an [`AuditRecord`] at the end of every request it sees.
/// The hook runs on the request's task: keep it quick (send the record to a channel, or log
/// it).
#[derive(Clone)]
pub struct Audit {
    hook: Hook,
}

impl Audit {
    /// Audits with `hook`.
    pub fn new(hook: impl Fn(&AuditRecord) + Send + Sync + 'static) -> Self {
        Self { hook: Arc::new(hook) }
    }
}

impl<S> Layer<S> for Audit {
    type Service = Guarded<S, Audit>;

    fn layer(&self, inner: S) -> Self::Service {
        Guarded::new(inner, self.clone())
    }
}

/// A request under audit: recorded when it ends, as cancelled if it is dropped unfinished.
pub struct Pending {
    record: Option<AuditRecord>,
    started: Instant,
    hook: Hook,
}

impl Pending {
    fn end(&mut self, outcome: AuditOutcome) {
        if let Some(mut record) = self.record.take() {
            record.elapsed = self.started.elapsed();
            record.outcome = outcome;
            (self.hook)(&record);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.end(AuditOutcome::Cancelled);
    }
}

impl Guard for Audit {
    type Pending = Pending;

    fn before(&self, request: &McpRequest) -> Result<Pending, ErrorObject> {
        let record = AuditRecord {
            method: request.method.clone(),
            target: request.target().map(str::to_owned),
            request_id: request.ctx.request_id().clone(),
            era: request.ctx.era(),
            client: request.ctx.client_info().map(|client| client.name.clone()),
            elapsed: Duration::ZERO,
            outcome: AuditOutcome::Cancelled,
        };
        Ok(Pending { record: Some(record), started: Instant::now(), hook: self.hook.clone() })
    }

    fn after(mut pending: Pending, answered: &Result<Answer, ErrorObject>) {
        pending.end(match answered {
            Ok(_) => AuditOutcome::Answered,
            Err(error) => AuditOutcome::Failed(error.clone()),
        });
    }
}
