//! The tools' schemas a client checks calls against (feature `validation`): learned from a
//! full listing, and forgotten when the server says its tool list changed (or notifications
//! were missed), so that the next call that needs them lists the tools again. A call made
//! before any listing lists them once first: a tool known by name is checked like a listed
//! one (TOOL-10).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::model::Tool;
use tokio::sync::broadcast;

use crate::schema::Validator;

/// The schemas of the last listing, compiled, by tool name: every listed tool's input schema
/// (`None` when it does not compile), and the output schemas there are.
struct Known {
    inputs: HashMap<String, Option<Arc<Validator>>>,
    outputs: HashMap<String, Arc<Validator>>,
}

struct State {
    /// `None` before a listing, and after a change made it stale.
    known: Option<Known>,
    /// The server's notifications, read before each look.
    changes: broadcast::Receiver<Notification>,
}

/// A client's knowledge of its server's tool schemas.
pub(super) struct ToolSchemas {
    state: Mutex<State>,
}

/// What the schemas say of one tool.
pub(super) enum Lookup {
    /// No listing is known (or it went stale): list the tools first.
    Unknown,
    /// The listing has no such tool.
    Unlisted,
    /// The tool's compiled schema, if it has one.
    Listed(Option<Arc<Validator>>),
}

impl ToolSchemas {
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

    /// Learns the schemas of `tools`, a full listing.
    pub(super) fn learn(&self, tools: &[Tool]) {
        let compile =
            |name: &str, what: &str, schema: &modelctx_protocol::JsonObject| match Validator::new(schema) {
                Ok(validator) => Some((name.to_owned(), Arc::new(validator))),
                Err(e) => {
                    tracing::warn!(tool = %name, error = %e, "a tool's {what} does not compile");
                    None
                }
            };
        let inputs = tools
            .iter()
            .map(|t| (t.name.clone(), compile(&t.name, "inputSchema", &t.input_schema).map(|(_, v)| v)))
            .collect();
        let outputs = tools
            .iter()
            .filter_map(|t| {
                t.output_schema.as_ref().and_then(|schema| compile(&t.name, "outputSchema", schema))
            })
            .collect();
        self.state().known = Some(Known { inputs, outputs });
    }

    /// Tool `name`'s input schema.
    pub(super) fn input(&self, name: &str) -> Lookup {
        self.look(name, |known| known.inputs.get(name).cloned().flatten())
    }

    /// Tool `name`'s output schema.
    pub(super) fn output(&self, name: &str) -> Lookup {
        self.look(name, |known| known.outputs.get(name).cloned())
    }

    fn look(&self, name: &str, schema: impl Fn(&Known) -> Option<Arc<Validator>>) -> Lookup {
        let state = self.state();
        match &state.known {
            None => Lookup::Unknown,
            Some(known) if !known.inputs.contains_key(name) => Lookup::Unlisted,
            Some(known) => Lookup::Listed(schema(known)),
        }
    }
}
