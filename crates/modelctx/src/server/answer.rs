//! What a request returns, before it is written.

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::{Message, PreparedResponse, PreparedResult, RequestId, Response};
use serde::Serialize;
use serde_json::value::RawValue;

use super::outgoing::Outgoing;

/// The result of a request in its era's wire shape, as a layer sees it on the way back.
///
/// Large listings stay the JSON text the server keeps of them until they are written, and the
/// results of the method tables are serialised once, straight from their typed value;
/// [`Answer::into_object`] parses either back when a layer needs to look inside.
#[derive(Debug)]
pub struct Answer(Repr);

#[derive(Debug)]
enum Repr {
    /// A result object.
    Object(JsonObject),
    /// A result with one member kept as JSON text (a `tools/list` page).
    Prepared(PreparedResult),
    /// A whole result as JSON text.
    Serialized(Box<RawValue>),
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

    /// A typed result serialised once, with no `Value` tree between it and the wire.
    pub(crate) fn serialized(result: &impl Serialize) -> Self {
        Self(Repr::Serialized(serde_json::value::to_raw_value(result).expect("results serialise")))
    }

    /// A 2026-07-28 result built without `_meta`, serialised once with `_meta` holding the
    /// server's `serverInfo`, which is already JSON: the server writes it once, not per result.
    pub(crate) fn modern(result: &impl Serialize, server_info: &RawValue) -> Self {
        #[derive(Serialize)]
        struct WithMeta<'a, T> {
            #[serde(flatten)]
            result: &'a T,
            #[serde(rename = "_meta")]
            meta: ServerInfoMeta<'a>,
        }
        #[derive(Serialize)]
        struct ServerInfoMeta<'a> {
            #[serde(rename = "io.modelcontextprotocol/serverInfo")]
            server_info: &'a RawValue,
        }
        Self::serialized(&WithMeta { result, meta: ServerInfoMeta { server_info } })
    }

    /// The result as one object (a prepared member or a serialised result parsed back).
    pub fn into_object(self) -> JsonObject {
        match self.0 {
            Repr::Object(result) => result,
            Repr::Prepared(prepared) => prepared.into_object(),
            Repr::Serialized(result) => {
                serde_json::from_str(result.get()).expect("results serialise to objects")
            }
        }
    }

    /// The response to request `id`.
    pub(crate) fn into_response(self, id: RequestId) -> Outgoing {
        match self.0 {
            Repr::Object(result) => Outgoing::Message(Message::Response(Response { id, result })),
            Repr::Prepared(result) => Outgoing::Prepared(PreparedResponse { id, result }),
            Repr::Serialized(result) => Outgoing::Serialized { id, result },
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
        let json = serde_json::value::to_raw_value(&info).unwrap();
        let spliced = Answer::modern(&result().into_modern(None), &json);
        let built = Answer::serialized(&result().into_modern(Some(info)));
        assert_eq!(spliced.into_object(), built.into_object());
    }
}
