//! Tool handlers are plain async functions whose parameters are extractors: [`Args`] (the
//! typed arguments, whose JSON Schema becomes the tool's `inputSchema`),
//! [`RequestContext`], and [`State`].

use std::future::Future;
use std::marker::PhantomData;

use futures::future::BoxFuture;
use modelctx_protocol::JsonObject;
use modelctx_protocol::model::CallToolResult;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::context::RequestContext;
use super::tool_result::{IntoCallToolResult, error_result};
use crate::schema::schema_of;

/// What a tool call hands to extractors.
pub struct ToolCallParts {
    pub(crate) ctx: RequestContext,
    pub(crate) arguments: JsonObject,
}

/// A value a tool handler can take as a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool handler parameter",
    note = "tool handlers take Args<T> (T: Deserialize + JsonSchema), RequestContext or State<T>"
)]
pub trait FromToolCall: Sized + Send + 'static {
    /// Extracts the value; an error message becomes an `isError` result.
    fn from_tool_call(parts: &ToolCallParts) -> Result<Self, String>;

    /// The input schema this extractor implies (only [`Args`] has one).
    fn input_schema() -> Option<JsonObject> {
        None
    }
}

/// The tool's arguments, deserialised into `T`. The tool's `inputSchema` is `T`'s JSON
/// Schema, and arguments are validated against it before the handler runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromToolCall for Args<T> {
    fn from_tool_call(parts: &ToolCallParts) -> Result<Self, String> {
        T::deserialize(Value::Object(parts.arguments.clone()))
            .map(Args)
            .map_err(|e| format!("invalid arguments: {e}"))
    }

    fn input_schema() -> Option<JsonObject> {
        Some(schema_of::<T>())
    }
}

impl FromToolCall for RequestContext {
    fn from_tool_call(parts: &ToolCallParts) -> Result<Self, String> {
        Ok(parts.ctx.clone())
    }
}

/// Shared state registered with [`crate::server::ServerBuilder::state`].
#[derive(Clone, Debug)]
pub struct State<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromToolCall for State<T> {
    fn from_tool_call(parts: &ToolCallParts) -> Result<Self, String> {
        parts.ctx.state::<T>().map(State).ok_or_else(|| {
            format!("server misconfigured: no state of type {} was registered", std::any::type_name::<T>())
        })
    }
}

/// An async function usable as a tool handler. Implemented for functions of up to three
/// extractor parameters returning a future of something [`IntoCallToolResult`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool handler",
    note = "a tool handler is an async fn (or closure returning a future) taking up to three extractors (Args<T>, RequestContext, State<T>) and returning String, CallToolResult, Json<T>, Vec<ContentBlock> or Result<_, impl Display>"
)]
pub trait ToolHandler<Marker>: Clone + Send + Sync + 'static {
    /// Runs the handler.
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, CallToolResult>;

    /// The `inputSchema` implied by the parameters: `Args<T>`'s schema, or a schema that
    /// accepts only an empty object.
    fn input_schema() -> JsonObject;

    /// The `outputSchema` implied by the return type.
    fn output_schema() -> Option<JsonObject>;
}

fn no_arguments_schema() -> JsonObject {
    match json!({"type": "object", "additionalProperties": false}) {
        Value::Object(schema) => schema,
        _ => unreachable!("a literal object"),
    }
}

macro_rules! impl_tool_handler {
    ($($param:ident),*) => {
        impl<F, Fut, R, $($param,)*> ToolHandler<($($param,)*)> for F
        where
            F: Fn($($param),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = R> + Send + 'static,
            R: IntoCallToolResult,
            $($param: FromToolCall,)*
        {
            #[allow(non_snake_case, unused_variables)]
            fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, CallToolResult> {
                $(
                    let $param = match $param::from_tool_call(&parts) {
                        Ok(value) => value,
                        Err(message) => return Box::pin(async move { error_result(message) }),
                    };
                )*
                let future = (self)($($param),*);
                Box::pin(async move { future.await.into_call_tool_result() })
            }

            fn input_schema() -> JsonObject {
                None$(.or_else($param::input_schema))*.unwrap_or_else(no_arguments_schema)
            }

            fn output_schema() -> Option<JsonObject> {
                R::output_schema()
            }
        }
    };
}

impl_tool_handler!();
impl_tool_handler!(T1);
impl_tool_handler!(T1, T2);
impl_tool_handler!(T1, T2, T3);

/// A handler with its marker type erased, so tools of any signature share one registry.
pub(crate) trait ErasedToolHandler: Send + Sync {
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, CallToolResult>;
}

pub(crate) struct Erased<H, M>(pub(crate) H, pub(crate) PhantomData<fn() -> M>);

impl<H: ToolHandler<M>, M: 'static> ErasedToolHandler for Erased<H, M> {
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, CallToolResult> {
        self.0.call(parts)
    }
}
