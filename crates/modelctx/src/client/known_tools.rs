//! What a client knows of its server's tools from the last full listing: the compiled input
//! and output schemas it checks calls against (feature `validation`) and, from a 2025-11-25
//! server, whether each tool runs as a task (`execution.taskSupport`). Forgotten when the
//! server says its tool list changed (or notifications were missed), so that the next call
//! that needs it lists the tools again. A call made before any listing lists them once first:
//! a tool known by name is treated like a listed one (TOOL-10).

use std::collections::HashMap;
#[cfg(feature = "validation")]
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard, PoisonError};

use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::model::Tool;
use modelctx_protocol::{Method, v2025};
use tokio::sync::broadcast;

#[cfg(feature = "validation")]
use crate::schema::Validator;

/// What the listing says of one tool.
pub(super) struct ToolFacts {
    /// The compiled `inputSchema`; `None` when it does not compile.
    #[cfg(feature = "validation")]
    pub(super) input: Option<Arc<Validator>>,
    /// The compiled `outputSchema`, when there is one that compiles.
    #[cfg(feature = "validation")]
    pub(super) output: Option<Arc<Validator>>,
    /// Whether a 2025-11-25 call may or must run as a task (forbidden from a 2026-07-28
    /// server, where the tasks extension lets the server decide per call).
    pub(super) task_support: v2025::TaskSupport,
}

struct State {
    /// `None` before a listing, and after a change made it stale.
    known: Option<HashMap<String, ToolFacts>>,
    /// The server's notifications, read before each look.
    changes: broadcast::Receiver<Notification>,
}

/// A client's knowledge of its server's tools.
pub(super) struct KnownTools {
    state: Mutex<State>,
}

/// What the listing says of one tool.
pub(super) enum Lookup<T> {
    /// No listing is known (or it went stale): list the tools first.
    Unknown,
    /// The listing has no such tool.
    Unlisted,
    /// What the listing says.
    Listed(T),
}

impl KnownTools {
    /// Nothing known yet; `changes` tells when the tool list changes.
    pub(super) fn new(changes: broadcast::Receiver<Notification>) -> Self {
        Self { state: Mutex::new(State { known: None, changes }) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match state.changes.try_recv() {
                Ok(note) if note.method == Method::ToolListChanged => state.known = None,
                Ok(_) => {}
                Err(broadcast::error::TryRecvError::Lagged(_)) => state.known = None,
                Err(_) => break,
            }
        }
        state
    }

    /// Learns `tools`, a full listing, with the task support a 2025-11-25 server gave them.
    pub(super) fn learn(&self, tools: &[Tool], task_support: &HashMap<String, v2025::TaskSupport>) {
        let known = tools
            .iter()
            .map(|tool| {
                let facts = ToolFacts {
                    #[cfg(feature = "validation")]
                    input: compile(&tool.name, "inputSchema", &tool.input_schema),
                    #[cfg(feature = "validation")]
                    output: tool.output_schema.as_ref().and_then(|s| compile(&tool.name, "outputSchema", s)),
                    task_support: task_support.get(&tool.name).copied().unwrap_or_default(),
                };
                (tool.name.clone(), facts)
            })
            .collect();
        self.state().known = Some(known);
    }

    /// What the listing says of tool `name`, read by `fact`.
    pub(super) fn look<T>(&self, name: &str, fact: impl FnOnce(&ToolFacts) -> T) -> Lookup<T> {
        match &self.state().known {
            None => Lookup::Unknown,
            Some(known) => known.get(name).map_or(Lookup::Unlisted, |facts| Lookup::Listed(fact(facts))),
        }
    }
}

/// A tool's schema compiled; `None`, said in the log, when it does not compile.
#[cfg(feature = "validation")]
fn compile(name: &str, what: &str, schema: &modelctx_protocol::JsonObject) -> Option<Arc<Validator>> {
    match Validator::new(schema) {
        Ok(validator) => Some(Arc::new(validator)),
        Err(e) => {
            tracing::warn!(tool = %name, error = %e, "a tool's {what} does not compile");
            None
        }
    }
}
