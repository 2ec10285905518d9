//! `_meta` keys: the reserved names MCP defines, and the key syntax rules.
//!
//! A key is an optional prefix (dot-separated labels, then `/`) and a name. Labels start
//! with a letter and end with a letter or digit, with letters, digits and hyphens inside.
//! The name, unless empty, starts and ends with an alphanumeric character, with
//! alphanumerics, `-`, `_` and `.` inside. A prefix whose *second* label is
//! `modelcontextprotocol` or `mcp` is reserved for MCP.

/// `progressToken`: opts a request into `notifications/progress` (both revisions).
pub const PROGRESS_TOKEN: &str = "progressToken";
/// The request's protocol version (2026-07-28, required on every request).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The request's client capabilities (2026-07-28, required on every request).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The client's `Implementation` (2026-07-28, should be on every request).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The request's log level (2026-07-28, deprecated; absent means no log notifications).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The server's `Implementation` on results (2026-07-28).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The `subscriptions/listen` request id a notification belongs to (2026-07-28).
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The task a message relates to (2025-11-25 tasks).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// The id of the task a message's params name in `_meta` ([`RELATED_TASK`]), if they name one.
pub fn related_task(params: &crate::JsonObject) -> Option<&str> {
    params.get("_meta")?.get(RELATED_TASK)?.get("taskId")?.as_str()
}

/// A string handed to the model while a task runs (2025-11-25 tasks).
pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";
/// W3C Trace Context `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// W3C Trace Context `tracestate`.
pub const TRACESTATE: &str = "tracestate";
/// W3C Baggage.
pub const BAGGAGE: &str = "baggage";

/// Why a `_meta` key is not well formed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaKeyError {
    /// A prefix label breaks the label rules; holds the label.
    BadPrefixLabel(String),
    /// The name breaks the name rules.
    BadName,
}

impl std::fmt::Display for MetaKeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadPrefixLabel(label) => write!(
                f,
                "prefix label {label:?} must start with a letter, end with a letter or digit, and hold only letters, digits and hyphens"
            ),
            Self::BadName => f.write_str(
                "the name must start and end with a letter or digit and hold only letters, digits, '-', '_' and '.'",
            ),
        }
    }
}

impl std::error::Error for MetaKeyError {}

/// Checks a `_meta` key against the syntax rules.
pub fn validate_key(key: &str) -> Result<(), MetaKeyError> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        for label in prefix.split('.') {
            let ok = label.starts_with(|c: char| c.is_ascii_alphabetic())
                && label.ends_with(|c: char| c.is_ascii_alphanumeric())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !ok {
                return Err(MetaKeyError::BadPrefixLabel(label.to_owned()));
            }
        }
    }
    let name_ok = name.is_empty()
        || (name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')));
    if name_ok { Ok(()) } else { Err(MetaKeyError::BadName) }
}

/// Whether a key's prefix is reserved for MCP (second label `modelcontextprotocol` or `mcp`).
pub fn is_reserved(key: &str) -> bool {
    key.rsplit_once('/')
        .and_then(|(prefix, _)| prefix.split('.').nth(1))
        .is_some_and(|label| label == "modelcontextprotocol" || label == "mcp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_prefixes_follow_the_second_label() {
        assert!(is_reserved(PROTOCOL_VERSION));
        assert!(is_reserved("dev.mcp/x"));
        assert!(is_reserved("org.modelcontextprotocol.api/x"));
        assert!(is_reserved("com.mcp.tools/x"));
        assert!(!is_reserved("com.example.mcp/x"));
        assert!(!is_reserved(PROGRESS_TOKEN));
    }

    #[test]
    fn base_18_meta_keys_follow_the_prefix_and_name_syntax() {
        for good in [PROTOCOL_VERSION, PROGRESS_TOKEN, "com.example/a.b-c_d", "x/", "a"] {
            assert_eq!(validate_key(good), Ok(()), "{good}");
        }
        assert!(matches!(validate_key("1com/x"), Err(MetaKeyError::BadPrefixLabel(_))));
        assert!(matches!(validate_key("com-/x"), Err(MetaKeyError::BadPrefixLabel(_))));
        assert_eq!(validate_key("com/-x"), Err(MetaKeyError::BadName));
        assert_eq!(validate_key("com/x y"), Err(MetaKeyError::BadName));
    }
}
