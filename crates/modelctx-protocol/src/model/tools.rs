//! `Tool` across revisions (2025-11-25 adds `execution.taskSupport`), and the sampling
//! request that carries tools.

use crate::{v2025, v2026};

/// The neutral tool description (the 2026-07-28 shape).
pub type Tool = v2026::Tool;

/// A tool for a 2025-11-25 peer, with its legacy task support.
pub fn legacy_tool(tool: Tool, execution: Option<v2025::ToolExecution>) -> v2025::Tool {
    let v2026::Tool { name, title, description, icons, input_schema, output_schema, annotations, meta } =
        tool;
    v2025::Tool { name, title, description, icons, input_schema, execution, output_schema, annotations, meta }
}

impl From<v2025::Tool> for v2026::Tool {
    /// Reads a legacy tool; its `execution` hint has no 2026-07-28 counterpart (the tasks
    /// extension lets the server decide per request) and is dropped.
    fn from(tool: v2025::Tool) -> Self {
        let v2025::Tool {
            name,
            title,
            description,
            icons,
            input_schema,
            execution: _,
            output_schema,
            annotations,
            meta,
        } = tool;
        Self { name, title, description, icons, input_schema, output_schema, annotations, meta }
    }
}

/// A sampling request for a 2025-11-25 peer: the same request, its tools in their legacy
/// shape (the request itself carries no `task` and no `_meta`).
pub fn legacy_create_message(params: v2026::CreateMessageRequestParams) -> v2025::CreateMessageRequestParams {
    let v2026::CreateMessageRequestParams {
        messages,
        model_preferences,
        system_prompt,
        include_context,
        temperature,
        max_tokens,
        stop_sequences,
        metadata,
        tools,
        tool_choice,
    } = params;
    v2025::CreateMessageRequestParams {
        meta: None,
        task: None,
        messages,
        model_preferences,
        system_prompt,
        include_context,
        temperature,
        max_tokens,
        stop_sequences,
        metadata,
        tools: tools.map(|tools| tools.into_iter().map(|tool| legacy_tool(tool, None)).collect()),
        tool_choice,
    }
}
