//! What a benchmark sends, and how each answer is checked.

use clap::ValueEnum;
use modelctx_protocol::JsonObject;
use serde::Deserialize;
use serde_json::{Value, json};

/// The kinds of request (`echo`, `add`, `list` on the command line and in the web inspector).
#[derive(Clone, Copy, Debug, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `tools/call echo` with a message of --payload bytes; the answer must echo it.
    Echo,
    /// `tools/call add` with a = the request's number, b = 1; the sum must be right.
    Add,
    /// `tools/list` (one page); every answer must list as many tools as the first.
    List,
}

/// A workload: the kind, and the echo message.
pub struct Workload {
    kind: Kind,
    message: String,
}

/// `--workload` names a [`Kind`].
pub type WorkloadKind = Kind;

impl Workload {
    /// A workload of `kind`; `payload` is the echo message's length.
    pub fn new(kind: Kind, payload: usize) -> Self {
        Self { kind, message: "x".repeat(payload) }
    }

    /// How reports name it.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Echo => format!("tools/call echo ({} bytes)", self.message.len()),
            Kind::Add => "tools/call add".into(),
            Kind::List => "tools/list".into(),
        }
    }

    /// The method and params of request number `n`.
    pub fn request(&self, n: u64) -> (&'static str, Value) {
        match self.kind {
            Kind::Echo => ("tools/call", json!({"name": "echo", "arguments": {"message": self.message}})),
            Kind::Add => ("tools/call", json!({"name": "add", "arguments": {"a": n, "b": 1}})),
            Kind::List => ("tools/list", json!({})),
        }
    }

    /// Whether `result` answers request number `n` correctly; why not.
    pub fn check(&self, n: u64, result: &JsonObject) -> Result<(), String> {
        let text = |result: &JsonObject| {
            result
                .get("content")
                .and_then(|c| c.get(0))
                .and_then(|b| b.get("text"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
        match self.kind {
            Kind::Echo if !failed && text(result).as_deref() == Some(self.message.as_str()) => Ok(()),
            Kind::Add if !failed && sum(result) == Some((n + 1) as f64) => Ok(()),
            Kind::List if result.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty()) => {
                Ok(())
            }
            _ => Err(format!(
                "request {n} ({}) was answered wrongly: {}",
                self.describe(),
                Value::Object(result.clone())
            )),
        }
    }
}

/// The sum in an `add` result: its structured content, or the number in its text.
fn sum(result: &JsonObject) -> Option<f64> {
    if let Some(sum) = result.get("structuredContent").and_then(|s| s.get("sum")).and_then(Value::as_f64) {
        return Some(sum);
    }
    let text = result.get("content")?.get(0)?.get("text")?.as_str()?;
    let value: Value = serde_json::from_str(text).ok()?;
    value.get("sum").and_then(Value::as_f64).or_else(|| value.as_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn only_the_right_answer_passes() {
        let echo = Workload::new(Kind::Echo, 3);
        assert!(echo.check(0, &object(json!({"content": [{"type": "text", "text": "xxx"}]}))).is_ok());
        assert!(echo.check(0, &object(json!({"content": [{"type": "text", "text": "xx"}]}))).is_err());
        let error = json!({"content": [{"type": "text", "text": "xxx"}], "isError": true});
        assert!(echo.check(0, &object(error)).is_err(), "a tool error is no echo");
        let add = Workload::new(Kind::Add, 0);
        assert!(add.check(41, &object(json!({"structuredContent": {"sum": 42.0}}))).is_ok());
        assert!(
            add.check(41, &object(json!({"content": [{"type": "text", "text": "{\"sum\":42}"}]}))).is_ok()
        );
        assert!(add.check(40, &object(json!({"structuredContent": {"sum": 42.0}}))).is_err());
        let list = Workload::new(Kind::List, 0);
        assert!(list.check(0, &object(json!({"tools": [{"name": "echo"}]}))).is_ok());
        assert!(list.check(0, &object(json!({"tools": []}))).is_err());
    }
}
