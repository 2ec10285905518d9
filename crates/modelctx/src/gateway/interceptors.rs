//! The gateway's interceptors (experimental, SEP-2624): a config's `"interceptors"` names the
//! backends' interceptors to run, with the gateway's own overrides, around every call it
//! relays:
//!
//! ```json
//! "interceptors": [
//!   {"server": "guard", "interceptor": "pii-redactor"},
//!   {"server": "guard", "interceptor": "blocked-terms", "config": {"terms": ["drop table"]},
//!    "mode": "audit", "failOpen": true, "timeoutMs": 2000}
//! ]
//! ```
//!
//! An entry without `"interceptor"` takes every interceptor of its server. The gateway lists
//! them as it starts (a named one its server does not host, or a server it cannot reach,
//! stops the start) and invokes them on the backend that hosts them, whichever instance of it
//! runs at the time: one that cannot be reached then fails, closed unless `failOpen`.

use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::JsonObject;
use modelctx_protocol::interceptors::{
    Hook, InvokeParams, LIST, ListResult, Mode, PriorityHint, execution_failed,
};
use modelctx_protocol::jsonrpc::ErrorObject;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::host::Host;
use crate::server::interceptors::{Chain, ChainEntry, InterceptorHost, Overrides};

/// One entry of a config's `"interceptors"`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InterceptorRule {
    /// The backend that hosts it.
    pub server: String,
    /// Its name; every interceptor of the server when absent.
    #[serde(default)]
    pub interceptor: Option<String>,
    /// The `config` it is invoked with.
    #[serde(default)]
    pub config: Option<JsonObject>,
    /// Overrides its `failOpen`.
    #[serde(default)]
    pub fail_open: Option<bool>,
    /// Overrides its `priorityHint`.
    #[serde(default)]
    pub priority_hint: Option<PriorityHint>,
    /// Overrides its mode (`enforce` or `audit`; `active` is read as `enforce`).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// How long one invocation may take (5 s when absent).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Only these of its hooks.
    #[serde(default)]
    pub hooks: Option<Vec<Hook>>,
}

impl InterceptorRule {
    /// The rules of a config's `"interceptors"` (an array); an error names the entry and what
    /// is wrong with it.
    pub fn from_json(rules: &Value) -> Result<Vec<Self>, String> {
        let Value::Array(rules) = rules else {
            return Err(format!("\"interceptors\" must be an array of entries, not {rules}"));
        };
        rules
            .iter()
            .enumerate()
            .map(|(i, rule)| {
                serde_json::from_value(rule.clone()).map_err(|e| format!("\"interceptors\"[{i}]: {e}"))
            })
            .collect()
    }

    fn overrides(&self) -> Overrides {
        Overrides {
            fail_open: self.fail_open,
            priority_hint: self.priority_hint,
            mode: self.mode,
            timeout_ms: self.timeout_ms,
            hooks: self.hooks.clone(),
        }
    }
}

/// The interceptors of backend `server`, invoked on whichever client the host holds for it.
struct Backend {
    host: Arc<Host>,
    server: String,
}

impl InterceptorHost for Backend {
    fn invoke(&self, params: InvokeParams) -> BoxFuture<'_, Result<Value, ErrorObject>> {
        Box::pin(async move {
            let Some(client) = self.host.client(&self.server) else {
                let reason = format!("its server {:?} is not connected", self.server);
                return Err(execution_failed(&params.name, &reason));
            };
            InterceptorHost::invoke(&*client, params).await
        })
    }
}

/// The chain `rules` describe, listed from their backends.
pub(super) async fn chain(host: &Arc<Host>, rules: &[InterceptorRule]) -> Result<Chain, String> {
    let mut entries = Vec::new();
    for rule in rules {
        let client = host.client(&rule.server).ok_or_else(|| {
            format!("the interceptors of {:?} cannot be listed: no such server is connected", rule.server)
        })?;
        let listed = client
            .request(LIST, json!({}))
            .await
            .map_err(|e| format!("the interceptors of {:?} cannot be listed: {e}", rule.server))?;
        let listed: ListResult = serde_json::from_value(Value::Object(listed))
            .map_err(|e| format!("{:?} lists its interceptors wrongly: {e}", rule.server))?;
        let chosen: Vec<_> = match &rule.interceptor {
            None => listed.interceptors,
            Some(name) => {
                let names: Vec<&str> = listed.interceptors.iter().map(|i| i.name.as_str()).collect();
                let found =
                    listed.interceptors.iter().find(|i| &i.name == name).cloned().ok_or_else(|| {
                        format!(
                            "{:?} hosts no interceptor {name:?} (it hosts: {})",
                            rule.server,
                            names.join(", ")
                        )
                    })?;
                vec![found]
            }
        };
        let backend: Arc<dyn InterceptorHost> =
            Arc::new(Backend { host: Arc::clone(host), server: rule.server.clone() });
        for interceptor in chosen {
            let mut entry = ChainEntry::new(interceptor, Arc::clone(&backend)).overrides(rule.overrides())?;
            if let Some(config) = &rule.config {
                entry = entry.config(config.clone());
            }
            entries.push(entry);
        }
    }
    Ok(Chain::new(entries))
}
