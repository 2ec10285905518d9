//! `CallToolResult` across revisions: `resultType` (2026-07-28 only) and the type of
//! `structuredContent` (any JSON vs an object).

use serde_json::Value;

use crate::types::{ContentBlock, Implementation};
use crate::{Meta, v2025, v2026};

/// What a tool handler returns, in either era.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallToolResult {
    /// Unstructured output for the model.
    pub content: Vec<ContentBlock>,
    /// Structured output, conforming to the tool's `outputSchema`.
    pub structured_content: Option<Value>,
    /// Whether the tool failed; the model sees the failure (this is not a protocol error).
    pub is_error: Option<bool>,
    /// Extra result metadata.
    pub meta: Option<Meta>,
}

/// A 2025-11-25 result needs object `structuredContent`, and this one is not an object.
#[derive(Clone, Debug, PartialEq)]
pub struct StructuredContentNotObject(pub Value);

impl std::fmt::Display for StructuredContentNotObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("2025-11-25 clients accept only an object as structuredContent; give the tool an object-rooted outputSchema")
    }
}

impl std::error::Error for StructuredContentNotObject {}

impl CallToolResult {
    /// The 2026-07-28 result: `resultType: "complete"`, with `serverInfo` in `_meta`.
    pub fn into_modern(self, server_info: Option<Implementation>) -> v2026::CallToolResult {
        let Self { content, structured_content, is_error, meta } = self;
        let meta = (server_info.is_some() || meta.is_some())
            .then(|| v2026::ResultMetaObject { server_info, other: meta.unwrap_or_default() });
        v2026::CallToolResult {
            result_type: v2026::ResultType::Complete,
            content,
            structured_content,
            is_error,
            meta,
        }
    }
}

impl TryFrom<CallToolResult> for v2025::CallToolResult {
    type Error = StructuredContentNotObject;

    fn try_from(result: CallToolResult) -> Result<Self, Self::Error> {
        let CallToolResult { content, structured_content, is_error, meta } = result;
        let structured_content = match structured_content {
            None => None,
            Some(Value::Object(object)) => Some(object),
            Some(other) => return Err(StructuredContentNotObject(other)),
        };
        Ok(Self { content, structured_content, is_error, meta })
    }
}

impl From<v2026::CallToolResult> for CallToolResult {
    fn from(result: v2026::CallToolResult) -> Self {
        let v2026::CallToolResult { result_type: _, content, structured_content, is_error, meta } = result;
        let meta = meta.map(|m| {
            let v2026::ResultMetaObject { server_info: _, other } = m;
            other
        });
        Self { content, structured_content, is_error, meta }
    }
}

impl From<v2025::CallToolResult> for CallToolResult {
    fn from(result: v2025::CallToolResult) -> Self {
        let v2025::CallToolResult { content, structured_content, is_error, meta } = result;
        Self { content, structured_content: structured_content.map(Value::Object), is_error, meta }
    }
}
