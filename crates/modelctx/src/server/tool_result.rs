//! What a tool handler may return: anything that becomes a `CallToolResult`.

use std::fmt::Display;

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::CallToolResult;
use modelctx_protocol::types::ContentBlock;
use schemars::JsonSchema;
use serde::Serialize;

use crate::schema::schema_of;

/// Converts a handler's return value into a tool result. A failure becomes a result with
/// `isError: true` that the model sees — not a protocol error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool handler",
    note = "return a String, a CallToolResult, Json<T>, a Vec<ContentBlock>, or a Result of one of these with an error that implements Display"
)]
pub trait IntoCallToolResult {
    /// The result.
    fn into_call_tool_result(self) -> CallToolResult;

    /// What the call is answered: the result, or for a [`ToolOutcome`] error a JSON-RPC
    /// error.
    fn into_outcome(self) -> Result<CallToolResult, ErrorObject>
    where
        Self: Sized,
    {
        Ok(self.into_call_tool_result())
    }

    /// The `outputSchema` this return type implies, if it produces structured content.
    fn output_schema() -> Option<JsonObject> {
        None
    }
}

/// Structured output: serialised as `structuredContent`, with the same JSON as a text block
/// for clients that only read `content` (TOOL-11); its schema becomes the tool's
/// `outputSchema`.
#[derive(Clone, Debug, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoCallToolResult for Json<T> {
    fn into_call_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => CallToolResult {
                content: vec![ContentBlock::text(value.to_string())],
                structured_content: Some(value),
                ..CallToolResult::default()
            },
            Err(e) => error_result(format!("the tool's output could not be serialised: {e}")),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        Some(schema_of::<T>())
    }
}

impl IntoCallToolResult for CallToolResult {
    fn into_call_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoCallToolResult for String {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult { content: vec![ContentBlock::text(self)], ..CallToolResult::default() }
    }
}

impl IntoCallToolResult for &'static str {
    fn into_call_tool_result(self) -> CallToolResult {
        self.to_owned().into_call_tool_result()
    }
}

impl IntoCallToolResult for ContentBlock {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult { content: vec![self], ..CallToolResult::default() }
    }
}

impl IntoCallToolResult for Vec<ContentBlock> {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult { content: self, ..CallToolResult::default() }
    }
}

impl IntoCallToolResult for () {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::default()
    }
}

impl<T: IntoCallToolResult, E: Display> IntoCallToolResult for Result<T, E> {
    fn into_call_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_call_tool_result(),
            Err(error) => error_result(error.to_string()),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// A tool's result, or a JSON-RPC error: `Err` answers the call with the error itself (and
/// fails its task, TX-19) — for faults of the server, such as a backend that is down, never
/// for what the model's arguments got wrong (those are `isError` results it can correct).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutcome<T>(pub Result<T, ErrorObject>);

impl<T: IntoCallToolResult> IntoCallToolResult for ToolOutcome<T> {
    fn into_call_tool_result(self) -> CallToolResult {
        match self.0 {
            Ok(value) => value.into_call_tool_result(),
            Err(error) => error_result(error.message),
        }
    }

    fn into_outcome(self) -> Result<CallToolResult, ErrorObject> {
        self.0.map(IntoCallToolResult::into_call_tool_result)
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// A tool result with `isError: true` and `message` as its text.
pub fn error_result(message: impl Into<String>) -> CallToolResult {
    CallToolResult {
        content: vec![ContentBlock::text(message)],
        is_error: Some(true),
        ..CallToolResult::default()
    }
}
