//! What differs between the eras on the client side, decided once when the connection is
//! made: the rest of the client asks its [`Dialect`] rather than matching on the era.

use modelctx_protocol::model::{CallToolResult, Tool};
use modelctx_protocol::types::LoggingLevel;
use modelctx_protocol::{Era, JsonObject, Method, v2025, v2026};
use serde_json::{Value, json};

use super::ClientError;
use super::link::Link;
use super::wire::parse;

/// One `tools/list` page, read.
pub(super) struct ToolsPage {
    /// The page's tools, in the neutral model.
    pub(super) tools: Vec<Tool>,
    /// The 2025-11-25 `execution.taskSupport` of the tools that gave one.
    pub(super) task_support: Vec<(String, v2025::TaskSupport)>,
    /// The cursor of the next page.
    pub(super) next_cursor: Option<String>,
}

/// How the client speaks to one server: 2026-07-28 (stateless, per-request `_meta`) or a
/// 2025-11-25 session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dialect {
    /// 2026-07-28.
    Modern,
    /// 2025-11-25 and older, in a session.
    Legacy,
}

impl From<Era> for Dialect {
    fn from(era: Era) -> Self {
        match era {
            Era::Modern => Self::Modern,
            Era::Legacy => Self::Legacy,
        }
    }
}

impl Dialect {
    /// The request that checks the server answers: `ping`, or `server/discover` in
    /// 2026-07-28, which has no `ping`.
    pub(super) fn ping_method(self) -> Method {
        match self {
            Self::Modern => Method::Discover,
            Self::Legacy => Method::Ping,
        }
    }

    /// A `tools/list` page in the neutral model; a modern page's `x-mcp-header` annotations
    /// are learnt by `link` (tools whose annotations are invalid are left out, HTTP-26), a
    /// legacy page's task support is kept beside it.
    pub(super) fn tools_page(self, link: &Link, page: JsonObject) -> Result<ToolsPage, ClientError> {
        match self {
            Self::Modern => {
                let mut page: v2026::ListToolsResult = parse(&Method::ListTools, page)?;
                link.learn_param_headers(&mut page.tools);
                Ok(ToolsPage { tools: page.tools, task_support: Vec::new(), next_cursor: page.next_cursor })
            }
            Self::Legacy => {
                let page: v2025::ListToolsResult = parse(&Method::ListTools, page)?;
                let task_support = page
                    .tools
                    .iter()
                    .filter_map(|tool| Some((tool.name.clone(), tool.execution?.task_support?)))
                    .collect();
                let tools = page.tools.into_iter().map(Tool::from).collect();
                Ok(ToolsPage { tools, task_support, next_cursor: page.next_cursor })
            }
        }
    }

    /// The member of a task's state that suggests how often to poll it, in milliseconds.
    pub(super) fn poll_interval_member(self) -> &'static str {
        match self {
            Self::Modern => "pollIntervalMs",
            Self::Legacy => "pollInterval",
        }
    }

    /// A `tools/call` result in the neutral model.
    pub(super) fn call_result(self, result: JsonObject) -> Result<CallToolResult, ClientError> {
        match self {
            Self::Modern => {
                parse::<v2026::CallToolResult>(&Method::CallTool, result).map(CallToolResult::from)
            }
            Self::Legacy => {
                parse::<v2025::CallToolResult>(&Method::CallTool, result).map(CallToolResult::from)
            }
        }
    }

    /// The request that sets the server's log level, where there is one: 2025-11-25 sets it
    /// once per session; 2026-07-28 sends it in every request's `_meta`.
    pub(super) fn log_level_request(self, level: LoggingLevel) -> Option<(Method, Value)> {
        match self {
            Self::Modern => None,
            Self::Legacy => Some((Method::SetLevel, json!({ "level": level }))),
        }
    }
}
