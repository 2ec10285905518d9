//! What a request returns, before it is written.

use std::fmt::Debug;
use std::sync::Arc;

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::{Message, PreparedResponse, PreparedResult, RequestId, Response};
use modelctx_protocol::{v2025, v2026};
use serde::Serialize;
use serde_json::value::RawValue;

use super::call_answer::{LegacyCall, ModernCall};
use super::outgoing::Outgoing;

/// The result of a request in its era's wire shape, as a layer sees it on the way back.
///
/// Large listings stay the JSON text the server keeps of them until they are written, and the
/// results of the method tables stay their typed value until then, serialised once, straight
/// into the writer's buffer; [`Answer::into_object`] builds the object when a layer needs to
/// look inside.
#[derive(Debug)]
pub struct Answer(Repr);

#[derive(Debug)]
enum Repr {
    /// A result object.
    Object(JsonObject),
    /// A result with one member kept as JSON text (a `tools/list` page).
    Prepared(PreparedResult),
    /// A typed result, not yet serialised.
    Typed(Box<dyn WriteJson>),
}

/// A typed result that is written as JSON when its answer is.
pub(crate) trait WriteJson: Send + Sync + Debug {
    /// Appends its JSON to `buffer`; an error (a map whose keys are not strings, a failing
    /// `Serialize`) may leave part of it written.
    fn write_json(&self, buffer: &mut Vec<u8>) -> serde_json::Result<()>;

    /// The result as one object: written, and read back.
    fn to_object(&self) -> JsonObject {
        let mut json = Vec::new();
        self.write_json(&mut json).expect("results serialise");
        serde_json::from_slice(&json).expect("results serialise to objects")
    }
}

impl<T: Serialize + Send + Sync + Debug> WriteJson for T {
    fn write_json(&self, buffer: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(buffer, self)
    }
}

/// A 2026-07-28 result and, as its `_meta`, the server's `serverInfo` as JSON.
#[derive(Debug, Serialize)]
pub(super) struct WithServerInfo<T> {
    #[serde(flatten)]
    pub(super) result: T,
    #[serde(rename = "_meta")]
    pub(super) meta: ServerInfoMeta,
}

#[derive(Debug, Serialize)]
pub(super) struct ServerInfoMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo", serialize_with = "raw")]
    pub(super) server_info: Arc<RawValue>,
}

fn raw<S: serde::Serializer>(json: &Arc<RawValue>, serializer: S) -> Result<S::Ok, S::Error> {
    json.serialize(serializer)
}

impl<T> WithServerInfo<T> {
    pub(super) fn new(result: T, server_info: Arc<RawValue>) -> Self {
        Self { result, meta: ServerInfoMeta { server_info } }
    }
}

impl From<JsonObject> for Answer {
    fn from(result: JsonObject) -> Self {
        Self(Repr::Object(result))
    }
}

impl Answer {
    /// A result with one member kept as JSON text.
    pub(crate) fn prepared(result: PreparedResult) -> Self {
        Self(Repr::Prepared(result))
    }

    /// A typed result, serialised once when it is written, with no `Value` tree between it
    /// and the wire.
    pub(crate) fn typed(result: impl Serialize + Send + Sync + Debug + 'static) -> Self {
        Self(Repr::Typed(Box::new(result)))
    }

    /// A 2026-07-28 result built without `_meta`, written with `_meta` holding the server's
    /// `serverInfo`, which is already JSON: the server writes it once, not per result.
    pub(crate) fn modern(
        result: impl Serialize + Send + Sync + Debug + 'static,
        server_info: Arc<RawValue>,
    ) -> Self {
        Self::typed(WithServerInfo::new(result, server_info))
    }

    /// A 2026-07-28 `tools/call` result built without `_meta`, as [`Answer::modern`] writes it,
    /// written without a serializer where it can be (`ModernCall`).
    pub(crate) fn modern_call(result: v2026::CallToolResult, server_info: Arc<RawValue>) -> Self {
        Self(Repr::Typed(Box::new(ModernCall(WithServerInfo::new(result, server_info)))))
    }

    /// A 2025-11-25 `tools/call` result, written without a serializer where it can be
    /// (`LegacyCall`).
    pub(crate) fn legacy_call(result: v2025::CallToolResult) -> Self {
        Self(Repr::Typed(Box::new(LegacyCall(result))))
    }

    /// The result as one object (a prepared member, or a typed result, serialised and read
    /// back).
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Object(result) => result,
            Repr::Prepared(prepared) => prepared.into_object(),
            Repr::Typed(result) => result.to_object(),
        }
    }

    /// The response to request `id`.
    pub(crate) fn into_response(self, id: RequestId) -> Outgoing {
        match self.0 {
            Repr::Object(result) => Outgoing::Message(Message::Response(Response { id, result })),
            Repr::Prepared(result) => Outgoing::Prepared(PreparedResponse { id, result }),
            Repr::Typed(result) => Outgoing::Typed { id, result },
        }
    }
}

#[cfg(test)]
mod tests {
    use modelctx_protocol::model::CallToolResult;
    use modelctx_protocol::types::Implementation;

    use super::*;

    #[test]
    fn a_result_with_server_info_already_serialised_reads_as_one_built_with_it() {
        let info = Implementation::new("server", "1.2.3");
        let result = || CallToolResult {
            content: Vec::new(),
            structured_content: Some(serde_json::json!({"n": 1})),
            is_error: Some(false),
            meta: None,
        };
        let json = Arc::from(serde_json::value::to_raw_value(&info).unwrap());
        let spliced = Answer::modern(result().into_modern(None), json);
        let built = Answer::typed(result().into_modern(Some(info)));
        assert_eq!(spliced.into_object(), built.into_object());
    }
}
