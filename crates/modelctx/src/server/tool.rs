//! Tools: definitions, registration checks, and calls with validated input and output.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use modelctx_protocol::Era;
use modelctx_protocol::apps::{ToolUi, Visibility};
use modelctx_protocol::headers::{McpParamHeader, validate_x_mcp_headers};
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::{self, CallToolResult, Tool};
use modelctx_protocol::types::{Icon, ToolAnnotations};
use modelctx_protocol::{JsonObject, Meta, v2025};
use serde_json::Value;

use super::cache_hints::cache_setter;
use super::context::RequestContext;
use super::error::RegistrationError;
use super::extract::{Erased, ErasedToolHandler, ToolCallParts, ToolHandler};
use super::middleware::{Layered, layer_setter};
use super::options::CacheDefaults;
use super::params::to_object;
use super::tasks::TaskSupport;
#[cfg(feature = "validation")]
use super::tool_result::error_result;
#[cfg(feature = "validation")]
use crate::schema::CompiledOnUse;

/// A tool to register: its description and its handler.
///
/// ```
/// use modelctx::server::{Args, Json, ToolDef};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs { a: f64, b: f64 }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: f64 }
///
/// let add = ToolDef::new("add", |Args(AddArgs { a, b }): Args<AddArgs>| async move {
///     Json(Sum { sum: a + b })
/// })
/// .description("Adds two numbers");
/// assert_eq!(add.tool().name, "add");
/// assert!(add.tool().output_schema.is_some());
/// ```
#[derive(Clone)]
pub struct ToolDef {
    tool: Tool,
    handler: Arc<dyn ErasedToolHandler>,
    layers: Layered,
    tasks: TaskSupport,
    task_in_handler: bool,
    cache: Option<CacheDefaults>,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("tool", &self.tool).finish_non_exhaustive()
    }
}

impl ToolDef {
    /// A tool named `name` served by `handler`; its input and output schemas follow from the
    /// handler's parameters and return type.
    pub fn new<H: ToolHandler<M>, M: 'static>(name: impl Into<String>, handler: H) -> Self {
        let tool = Tool {
            name: name.into(),
            input_schema: H::input_schema(),
            output_schema: H::output_schema(),
            ..Tool::default()
        };
        Self {
            tool,
            handler: Arc::new(Erased(handler, PhantomData)),
            layers: Layered::default(),
            tasks: TaskSupport::Forbidden,
            task_in_handler: false,
            cache: None,
        }
    }

    /// A tool described by `tool` whole — as another server listed it, for a proxy or a
    /// gateway — served by `handler`; the description, schemas and `_meta` are `tool`'s, not
    /// the handler's.
    pub fn listed<H: ToolHandler<M>, M: 'static>(tool: Tool, handler: H) -> Self {
        Self { tool, ..Self::new(String::new(), handler) }
    }

    layer_setter!();
    cache_setter!();

    /// Runs the tool as a task (the tasks extension) for clients that declared it: `Optional`
    /// answers the others plainly, `Required` refuses them with `-32021`. See
    /// [`crate::server::tasks`].
    pub fn tasks(mut self, support: TaskSupport) -> Self {
        self.tasks = support;
        self
    }

    /// The call becomes a task only when the handler calls
    /// [`RequestContext::continue_as_task`](super::RequestContext::continue_as_task), after
    /// asking (as rounds of the call) what it needs before the work starts; without this the
    /// task starts before the handler runs.
    pub fn task_starts_in_handler(mut self) -> Self {
        self.task_in_handler = true;
        self
    }

    /// The description the model reads.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// A human-readable name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Behaviour hints (read-only, destructive, idempotent, open-world).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// Icons for display.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.tool.icons = Some(icons);
        self
    }

    /// Replaces the generated input schema (it must still have `"type": "object"` at its root).
    pub fn input_schema(mut self, schema: JsonObject) -> Self {
        self.tool.input_schema = schema;
        self
    }

    /// Sets or replaces the output schema.
    pub fn output_schema(mut self, schema: JsonObject) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    /// Extra `_meta` on the tool description.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// Links the tool to the app at `resource_uri` (`_meta.ui.resourceUri`, MCP Apps): hosts
    /// that show apps render it for the tool's results. Building fails unless the server
    /// registers that app ([`super::ServerBuilder::app`]).
    pub fn ui(mut self, resource_uri: impl Into<String>) -> Self {
        let uri = resource_uri.into();
        super::apps::edit_ui(&mut self.tool, |ui| ui.resource_uri = Some(uri));
        self
    }

    /// Who may call the tool (`_meta.ui.visibility`); by default the model and the app. A
    /// tool only the app may call is left out of the lists of clients that show no apps.
    pub fn visibility(mut self, who: &[Visibility]) -> Self {
        let who = who.to_vec();
        super::apps::edit_ui(&mut self.tool, |ui| ui.visibility = Some(who));
        self
    }

    /// The tool description as `tools/list` will show it.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }
}

/// A tool that passed the registration checks, with its schemas compiled.
pub(crate) struct RegisteredTool {
    pub(crate) tool: Tool,
    handler: Arc<dyn ErasedToolHandler>,
    /// The tool's own layers.
    pub(crate) layers: Layered,
    /// Whether the tool runs as a task, and when the task starts.
    pub(crate) tasks: TaskSupport,
    pub(crate) task_in_handler: bool,
    /// Its own cache hints, if it has them.
    pub(crate) cache: Option<CacheDefaults>,
    /// The input and output schemas, compiled (the `validation` feature).
    #[cfg(feature = "validation")]
    input: CompiledOnUse,
    #[cfg(feature = "validation")]
    output: CompiledOnUse,
    /// The arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`).
    pub(crate) param_headers: Vec<McpParamHeader>,
    /// Its MCP Apps settings (`_meta.ui`), when it has a UI.
    pub(crate) ui: Option<ToolUi>,
    /// The tool as 2026-07-28 lists it, serialised once, on the first listing.
    modern_json: OnceLock<Value>,
    /// The tool as 2025-11-25 lists it, serialised once, on the first listing.
    legacy_json: OnceLock<Value>,
}

/// The tool as a 2025-11-25 peer may see it: that revision restricts `outputSchema` to
/// `"type": "object"` at the root, so any other output schema is left out (§19 #13; calls of
/// such a tool from a legacy session fail with `-32603` rather than send non-object
/// `structuredContent`).
fn object_output_only(mut tool: Tool) -> Tool {
    if tool.output_schema.as_ref().is_some_and(|schema| schema.get("type") != Some(&Value::from("object"))) {
        tool.output_schema = None;
    }
    tool
}

/// Whether `name` follows the spec's tool name rules (TOOL-06): 1–128 characters of
/// `A-Z a-z 0-9 _ - .`.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > 128 {
        return Err("tool names are 1 to 128 characters long");
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        return Err("tool names use only A-Z, a-z, 0-9, '_', '-' and '.'");
    }
    Ok(())
}

impl RegisteredTool {
    /// Checks a definition: the name (TOOL-06), an object-rooted input schema (TOOL-05), and
    /// `x-mcp-header` annotations (HTTP-26); with `check_schemas`, that both schemas compile.
    pub(crate) fn new(def: ToolDef, check_schemas: bool) -> Result<Self, RegistrationError> {
        let ToolDef { tool, handler, layers, tasks, task_in_handler, cache } = def;
        let invalid = |reason: String| RegistrationError::Tool { name: tool.name.clone(), reason };
        check_name(&tool.name).map_err(|reason| invalid(reason.to_owned()))?;
        if tool.input_schema.get("type") != Some(&Value::String("object".into())) {
            return Err(invalid("inputSchema must have \"type\": \"object\" at its root".into()));
        }
        // Without the `validation` feature there is nothing to compile.
        #[cfg(not(feature = "validation"))]
        let _ = check_schemas;
        #[cfg(feature = "validation")]
        let (input, output) = if check_schemas {
            let input =
                CompiledOnUse::now(&tool.input_schema).map_err(|e| invalid(format!("inputSchema: {e}")))?;
            let output = match &tool.output_schema {
                Some(schema) => {
                    CompiledOnUse::now(schema).map_err(|e| invalid(format!("outputSchema: {e}")))?
                }
                None => CompiledOnUse::default(),
            };
            (input, output)
        } else {
            (CompiledOnUse::default(), CompiledOnUse::default())
        };
        let param_headers =
            validate_x_mcp_headers(&tool.input_schema).map_err(|e| invalid(format!("x-mcp-header: {e}")))?;
        let ui = ToolUi::of(tool.meta.as_ref());
        Ok(Self {
            tool,
            handler,
            layers,
            tasks,
            task_in_handler,
            cache,
            #[cfg(feature = "validation")]
            input,
            #[cfg(feature = "validation")]
            output,
            param_headers,
            ui,
            modern_json: OnceLock::new(),
            legacy_json: OnceLock::new(),
        })
    }

    /// The tool as `era`'s `tools/list` shows it, serialised on the first listing: a server
    /// whose client only calls its tools never pays for it.
    pub(crate) fn wire(&self, era: Era) -> &Value {
        match era {
            Era::Modern => self.modern_json.get_or_init(|| Value::Object(to_object(&self.tool))),
            Era::Legacy => self.legacy_json.get_or_init(|| Value::Object(to_object(&self.legacy()))),
        }
    }

    /// The tool as 2025-11-25 describes it, which says on the tool whether it runs as a task
    /// (`execution.taskSupport`).
    fn legacy(&self) -> v2025::Tool {
        let task_support = match self.tasks {
            TaskSupport::Forbidden => None,
            TaskSupport::Optional => Some(v2025::TaskSupport::Optional),
            TaskSupport::Required => Some(v2025::TaskSupport::Required),
        };
        let execution = task_support.map(|support| v2025::ToolExecution { task_support: Some(support) });
        model::legacy_tool(object_output_only(self.tool.clone()), execution)
    }

    /// Validates the arguments, runs the handler, and checks its structured output.
    /// Invalid arguments are a tool error the model can correct (SEP-1303); output that breaks
    /// the declared `outputSchema` is the server's fault, a JSON-RPC internal error (TOOL-09).
    /// Without the `validation` feature neither schema is checked here: typed arguments are
    /// still checked as the handler deserialises them.
    pub(crate) async fn call(
        &self,
        ctx: RequestContext,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, ErrorObject> {
        let arguments = arguments.unwrap_or_default();
        #[cfg(feature = "validation")]
        let arguments = match self.validated(arguments)? {
            Ok(arguments) => arguments,
            Err(problems) => {
                return Ok(error_result(format!(
                    "Invalid arguments for tool {}: {problems}",
                    self.tool.name
                )));
            }
        };
        let result = self.handler.call(ToolCallParts { ctx, arguments }).await?;
        #[cfg(feature = "validation")]
        self.check_output(&result)?;
        if self.ui.is_some() {
            super::apps::check_fallback(&self.tool.name, &result)?;
        }
        Ok(result)
    }

    /// `arguments` when they conform to the tool's input schema; otherwise what is wrong.
    /// Validated in place: a large argument is never copied.
    #[cfg(feature = "validation")]
    fn validated(&self, arguments: JsonObject) -> Result<Result<JsonObject, String>, ErrorObject> {
        let input = self.input.get(&self.tool.input_schema).map_err(|e| self.broken("inputSchema", e))?;
        let arguments = Value::Object(arguments);
        if let Some(problems) = input.explain(&arguments) {
            return Ok(Err(problems));
        }
        let Value::Object(arguments) = arguments else { unreachable!("built as an object above") };
        Ok(Ok(arguments))
    }

    /// Refuses a result whose structured output breaks the declared `outputSchema`.
    #[cfg(feature = "validation")]
    fn check_output(&self, result: &CallToolResult) -> Result<(), ErrorObject> {
        let (Some(schema), false) = (&self.tool.output_schema, result.is_error == Some(true)) else {
            return Ok(());
        };
        let validator = self.output.get(schema).map_err(|e| self.broken("outputSchema", e))?;
        let problem = match &result.structured_content {
            None => Some("no structuredContent".to_owned()),
            Some(value) => validator.explain(value),
        };
        match problem {
            None => Ok(()),
            Some(problem) => {
                tracing::error!(tool = %self.tool.name, %problem, "tool output breaks its outputSchema");
                Err(ErrorObject::internal(format!(
                    "tool {} produced output that does not match its outputSchema: {problem}",
                    self.tool.name
                )))
            }
        }
    }

    /// The error of a call to a tool whose `which` schema does not compile: the server's
    /// fault, logged, and told to the client as `-32603`.
    #[cfg(feature = "validation")]
    fn broken(&self, which: &str, problem: &str) -> ErrorObject {
        tracing::error!(tool = %self.tool.name, %problem, "the tool's {which} does not compile");
        ErrorObject::internal(format!(
            "tool {} has an {which} that does not compile: {problem}",
            self.tool.name
        ))
    }
}
