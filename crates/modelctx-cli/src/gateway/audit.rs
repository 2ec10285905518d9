//! `modelctx gateway --audit FILE`: one JSON line per tool call — when it ended, who made it,
//! which backend and tool, how it ended, how long it took, its trace — with its arguments,
//! each value under a key `--audit-redact` names replaced by `"[redacted]"`, at any depth.
//!
//! Lines are written by a thread of their own, so a slow disk never holds a call: at most
//! [`BACKLOG`] wait; past that a line is dropped, counted in
//! `mcp_gateway_audit_dropped_total` and said in the log.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

use modelctx::gateway::observe::{CallObserver, CallOutcome, CallRecord};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::metrics::Metrics;

/// Audit lines waiting to be written, at most.
pub const BACKLOG: usize = 4096;

/// What stands in for a redacted value.
const REDACTED: &str = "[redacted]";

/// The audit log: lines handed to its writer thread.
pub struct Audit {
    lines: SyncSender<String>,
    /// Argument keys whose values are redacted, lowercased.
    redact: Vec<String>,
    metrics: Arc<Metrics>,
}

impl Audit {
    /// Appends to the file at `path` (made when missing), or writes to standard output for
    /// `-`; keys named in `redact` are redacted; dropped lines are counted in `metrics`.
    pub fn open(path: &Path, redact: &[String], metrics: Arc<Metrics>) -> std::io::Result<Self> {
        let mut out: Box<dyn std::io::Write + Send> = if path == Path::new("-") {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::fs::OpenOptions::new().create(true).append(true).open(path)?)
        };
        let (lines, written) = sync_channel::<String>(BACKLOG);
        std::thread::Builder::new().name("modelctx-audit".into()).spawn(move || {
            for line in written {
                if let Err(error) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
                    tracing::error!(%error, "an audit line could not be written");
                }
            }
        })?;
        let redact = redact.iter().map(|key| key.to_lowercase()).collect();
        Ok(Self { lines, redact, metrics })
    }

    /// The line of `record`.
    fn line(&self, record: &CallRecord<'_>) -> String {
        let time = OffsetDateTime::now_utc().format(&Rfc3339).unwrap_or_default();
        let principal = record.principal.map(|principal| {
            json!({"issuer": principal.issuer, "subject": principal.subject, "clientId": principal.client_id})
        });
        let error_code = match record.outcome {
            CallOutcome::Error(code) => Some(code),
            _ => None,
        };
        let mut arguments = Value::Object(record.arguments.clone());
        self.redacted(&mut arguments);
        let line = json!({
            "time": time,
            "principal": principal,
            "server": record.server,
            "tool": record.tool,
            "name": record.name,
            "outcome": record.outcome.as_str(),
            "errorCode": error_code,
            "detail": record.detail,
            "durationMs": record.duration.as_secs_f64() * 1000.0,
            "traceId": record.trace_id,
            "arguments": arguments,
        });
        format!("{line}\n")
    }

    /// `value` with every value under a redacted key replaced, at any depth.
    fn redacted(&self, value: &mut Value) {
        match value {
            Value::Object(object) => self.redact_object(object),
            Value::Array(items) => items.iter_mut().for_each(|item| self.redacted(item)),
            _ => {}
        }
    }

    fn redact_object(&self, object: &mut Map<String, Value>) {
        for (key, value) in object.iter_mut() {
            if self.redact.contains(&key.to_lowercase()) {
                *value = Value::String(REDACTED.into());
            } else {
                self.redacted(value);
            }
        }
    }
}

impl CallObserver for Audit {
    fn call_ended(&self, record: &CallRecord<'_>) {
        match self.lines.try_send(self.line(record)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.metrics.audit_dropped.inc();
                tracing::warn!(backlog = BACKLOG, "the audit writer fell behind: a line was dropped");
            }
            Err(TrySendError::Disconnected(_)) => {
                self.metrics.audit_dropped.inc();
                tracing::error!("the audit writer stopped: a line was dropped");
            }
        }
    }
}
