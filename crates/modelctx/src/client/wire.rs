//! Shapes on the client's wire: the `_meta` of modern requests, typed results.

use modelctx_protocol::Method;
use modelctx_protocol::types::LoggingLevel;
use modelctx_protocol::v2026::ResultType;
use modelctx_protocol::{JsonObject, ProtocolVersion, meta, v2026};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{ClientError, ClientOptions};

/// Member `key` of a result, typed.
pub(super) fn member<T: DeserializeOwned>(
    method: &Method,
    result: &mut JsonObject,
    key: &str,
) -> Result<T, ClientError> {
    let value = result.remove(key).unwrap_or(Value::Null);
    serde_json::from_value(value)
        .map_err(|e| ClientError::invalid_result(method.clone(), format!("{key}: {e}")))
}

pub(super) fn parse<T: DeserializeOwned>(method: &Method, result: JsonObject) -> Result<T, ClientError> {
    serde_json::from_value(Value::Object(result))
        .map_err(|e| ClientError::invalid_result(method.clone(), e.to_string()))
}

/// The `resultType` of a result: absent means `complete` (BASE-08); a value that is not a
/// string reads as one this client does not know.
pub(super) fn result_type(result: &JsonObject) -> ResultType {
    match result.get("resultType") {
        None => ResultType::Complete,
        Some(Value::String(kind)) => ResultType::from(kind.as_str()),
        Some(other) => ResultType::Other(other.to_string()),
    }
}

/// The `_meta` object of `params`, made one if it is absent or not an object.
pub(super) fn request_meta(params: &mut JsonObject) -> &mut JsonObject {
    let slot = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
    if !slot.is_object() {
        *slot = Value::Object(JsonObject::new());
    }
    slot.as_object_mut().expect("made an object above")
}

/// `params` with the `_meta` every 2026-07-28 request carries, and the log level asked for —
/// or, [`super::on_behalf`] of another client, that client's capabilities and log level.
pub(super) fn with_meta(
    mut params: JsonObject,
    version: ProtocolVersion,
    options: &ClientOptions,
    log_level: Option<LoggingLevel>,
) -> JsonObject {
    let request_meta = request_meta(&mut params);
    request_meta.insert(meta::PROTOCOL_VERSION.into(), json!(version.to_string()));
    let behalf = super::behalf::current();
    let mut capabilities = match behalf.as_ref().and_then(|behalf| behalf.capabilities.clone()) {
        Some(theirs) => theirs,
        None => options.handlers.capabilities(),
    };
    if super::behalf::wants_tasks(options) {
        let extensions = capabilities.extensions.get_or_insert_default();
        extensions.insert(modelctx_protocol::tasks::EXTENSION_ID.to_owned(), JsonObject::new());
    }
    let capabilities = v2026::ClientCapabilities::from(capabilities);
    request_meta.insert(meta::CLIENT_CAPABILITIES.into(), json!(capabilities));
    request_meta.insert(meta::CLIENT_INFO.into(), json!(options.info));
    let log_level = match behalf {
        Some(behalf) => behalf.log_level,
        None => log_level,
    };
    if let Some(level) = log_level {
        request_meta.insert(meta::LOG_LEVEL.into(), json!(level));
    }
    params
}

/// The length of `value` as JSON, counted without keeping the text.
pub(crate) fn json_bytes(value: &impl serde::Serialize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

#[cfg(test)]
mod tests {
    use modelctx_protocol::types::Implementation;

    use super::*;
    use crate::client::ClientHandlers;

    /// The tasks extension is declared beside the handlers' own extensions, not in their place.
    #[test]
    fn tasks_join_the_extensions_the_handlers_declare() {
        let handlers = ClientHandlers::default().extension("io.modelcontextprotocol/ui", JsonObject::new());
        let options =
            ClientOptions { handlers, tasks: true, ..ClientOptions::new(Implementation::new("t", "1")) };
        let params = with_meta(JsonObject::new(), ProtocolVersion::V2026_07_28, &options, None);
        let extensions = &params["_meta"][meta::CLIENT_CAPABILITIES]["extensions"];
        assert_eq!(
            extensions,
            &json!({"io.modelcontextprotocol/ui": {}, (modelctx_protocol::tasks::EXTENSION_ID): {}})
        );
    }
}
