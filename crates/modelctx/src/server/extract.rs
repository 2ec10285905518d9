//! Handlers are plain async functions whose parameters are extractors — for tools, prompts,
//! resources and completers alike: [`Args`] (the typed arguments of a tool call or a prompt,
//! or the variables of a resource template), [`RequestContext`], [`State`], or the whole
//! request ([`PromptRequest`], [`ResourceRequest`], [`CompletionRequest`]). An extractor that
//! cannot make its value refuses the request with a typed [`Rejection`], which each kind of
//! handler answers as its clients expect.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;

use futures::future::BoxFuture;
use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::CallToolResult;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::context::RequestContext;
use super::tool_result::{IntoCallToolResult, error_result};
use super::{CompletionRequest, PromptRequest, ResourceRequest};
use crate::schema::schema_of;

/// What a tool call hands to extractors.
pub struct ToolCallParts {
    pub(crate) ctx: RequestContext,
    pub(crate) arguments: JsonObject,
}

/// A request handlers take parameters from: a tool call, a prompt, a resource read, a
/// completion.
pub trait HandlerRequest: Send + 'static {
    /// The request's context.
    fn context(&self) -> &RequestContext;
}

/// Every request kind keeps its context in `ctx`.
macro_rules! handler_requests {
    ($($request:ty),*) => {$(
        impl HandlerRequest for $request {
            fn context(&self) -> &RequestContext {
                &self.ctx
            }
        }
    )*};
}
handler_requests!(ToolCallParts, PromptRequest, ResourceRequest, CompletionRequest);

/// What a prompt or resource handler may return: its items (`Vec<T>`), or a `Result` of them
/// with the kind's error.
pub trait IntoOutput<T, E>: Send + 'static {
    /// The items, or the error.
    fn into_output(self) -> Result<T, E>;
}

impl<T: Send + 'static, E: 'static> IntoOutput<Vec<T>, E> for Vec<T> {
    fn into_output(self) -> Result<Vec<T>, E> {
        Ok(self)
    }
}

impl<T: Send + 'static, E: Send + 'static> IntoOutput<Vec<T>, E> for Result<Vec<T>, E> {
    fn into_output(self) -> Result<Vec<T>, E> {
        self
    }
}

/// Why an extractor refused a request.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// The client's input does not fit: a tool's or prompt's arguments, a template's
    /// variables. A tool answers it with an `isError` result the model can correct, a prompt
    /// with `-32602`, a resource with "not found".
    Invalid(String),
    /// The server was built without the state a handler takes ([`State<T>`]): `-32603`,
    /// whatever the kind of handler.
    MissingState(&'static str),
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(why) => f.write_str(why),
            Self::MissingState(type_name) => {
                write!(f, "server misconfigured: no state of type {type_name} was registered")
            }
        }
    }
}

impl Rejection {
    /// The JSON-RPC error for a rejection the client cannot correct.
    pub(crate) fn internal(&self) -> ErrorObject {
        ErrorObject::internal(self)
    }
}

/// A value a handler can take as a parameter, extracted from request `R`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a handler of `{R}`",
    note = "handlers take Args<T>, RequestContext, State<T>, or the whole request (PromptRequest, ResourceRequest, CompletionRequest)"
)]
pub trait FromRequest<R>: Sized + Send + 'static {
    /// Extracts the value, or refuses the request.
    fn from_request(request: &R) -> Result<Self, Rejection>;

    /// The input schema this extractor implies (only [`Args`] has one).
    fn input_schema() -> Option<JsonObject> {
        None
    }
}

/// The typed input of a request: a tool's arguments (whose JSON Schema becomes the tool's
/// `inputSchema`, checked before the handler runs), a prompt's arguments (whose schema
/// declares the prompt's arguments), or a resource template's variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromRequest<ToolCallParts> for Args<T> {
    fn from_request(parts: &ToolCallParts) -> Result<Self, Rejection> {
        typed_arguments(&parts.arguments).map(Args).map_err(Rejection::Invalid)
    }

    fn input_schema() -> Option<JsonObject> {
        Some(schema_of::<T>())
    }
}

/// A tool's arguments as `T`; otherwise what does not fit and where (`invalid arguments: /a:
/// invalid type: string "two", expected f64`): without the `validation` feature this is the
/// check a call's arguments get.
fn typed_arguments<T: DeserializeOwned>(arguments: &JsonObject) -> Result<T, String> {
    // The plain pass first: the path is tracked (at a cost on every call) only to explain a
    // refusal. Read in place: the arguments are not copied to be read.
    T::deserialize(arguments).map_err(|plain| match serde_path_to_error::deserialize::<_, T>(arguments) {
        Err(e) => format!("invalid arguments: {}: {}", json_pointer(e.path()), e.inner()),
        Ok(_) => format!("invalid arguments: {plain}"),
    })
}

/// Where in the arguments deserialising failed, as a JSON Pointer (`/a`, `/items/0`), as the
/// schema checks name it; `(root)` for the arguments object itself.
fn json_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let pointer: String = path
        .iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(format!("/{index}")),
            Segment::Map { key } => Some(format!("/{}", key.replace('~', "~0").replace('/', "~1"))),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect();
    if pointer.is_empty() { "(root)".to_owned() } else { pointer }
}

/// `T` from a map of strings: a prompt's arguments, a template's variables.
fn from_strings<T: DeserializeOwned>(values: &BTreeMap<String, String>, what: &str) -> Result<T, Rejection> {
    super::strings::from_strings(values).map_err(|e| Rejection::Invalid(format!("invalid {what}: {e}")))
}

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromRequest<PromptRequest> for Args<T> {
    fn from_request(request: &PromptRequest) -> Result<Self, Rejection> {
        from_strings(&request.arguments, "arguments").map(Args)
    }

    fn input_schema() -> Option<JsonObject> {
        Some(schema_of::<T>())
    }
}

impl<T: DeserializeOwned + Send + 'static> FromRequest<ResourceRequest> for Args<T> {
    fn from_request(request: &ResourceRequest) -> Result<Self, Rejection> {
        from_strings(&request.variables, "template variables").map(Args)
    }
}

impl<R: HandlerRequest> FromRequest<R> for RequestContext {
    fn from_request(request: &R) -> Result<Self, Rejection> {
        Ok(request.context().clone())
    }
}

/// Shared state registered with [`crate::server::ServerBuilder::state`].
#[derive(Clone, Debug)]
pub struct State<T>(pub T);

impl<R: HandlerRequest, T: Clone + Send + Sync + 'static> FromRequest<R> for State<T> {
    fn from_request(request: &R) -> Result<Self, Rejection> {
        request.context().state::<T>().map(State).ok_or(Rejection::MissingState(std::any::type_name::<T>()))
    }
}

/// The whole request, for handlers that want every part of it.
macro_rules! whole_request {
    ($($request:ty),*) => {$(
        impl FromRequest<$request> for $request {
            fn from_request(request: &$request) -> Result<Self, Rejection> {
                Ok(request.clone())
            }
        }
    )*};
}
whole_request!(PromptRequest, ResourceRequest, CompletionRequest);

/// An async function whose parameters are extracted from request `R`: implemented for
/// functions (and closures) of up to three [`FromRequest`] parameters returning a future.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler of `{R}`",
    note = "a handler is an async fn (or a closure returning a future) taking up to three extractors: Args<T>, RequestContext, State<T>, or the whole request"
)]
pub trait Handler<R, M>: Clone + Send + Sync + 'static {
    /// What the handler's future yields.
    type Output: Send + 'static;

    /// The handler's future.
    type Future: Future<Output = Self::Output> + Send + 'static;

    /// Extracts the parameters and starts the handler, or refuses the request.
    fn call(&self, request: R) -> Result<Self::Future, Rejection>;

    /// The input schema the parameters imply ([`Args<T>`]'s).
    fn input_schema() -> Option<JsonObject>;
}

macro_rules! impl_handler {
    ($($param:ident),*) => {
        impl<R, F, Fut, $($param,)*> Handler<R, ($($param,)*)> for F
        where
            R: Send + 'static,
            F: Fn($($param),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            Fut::Output: Send + 'static,
            $($param: FromRequest<R>,)*
        {
            type Output = Fut::Output;
            type Future = Fut;

            #[allow(non_snake_case, unused_variables)]
            fn call(&self, request: R) -> Result<Fut, Rejection> {
                $(let $param = $param::from_request(&request)?;)*
                Ok((self)($($param),*))
            }

            fn input_schema() -> Option<JsonObject> {
                None$(.or_else($param::input_schema))*
            }
        }
    };
}

impl_handler!();
impl_handler!(T1);
impl_handler!(T1, T2);
impl_handler!(T1, T2, T3);

/// A [`Handler`] of tool calls whose output is a tool result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool handler",
    note = "a tool handler is an async fn (or closure returning a future) taking up to three extractors (Args<T>, RequestContext, State<T>) and returning String, CallToolResult, Json<T>, Vec<ContentBlock> or Result<_, impl Display>"
)]
pub trait ToolHandler<M>: Clone + Send + Sync + 'static {
    /// Runs the handler: invalid arguments are an `isError` result, missing state `-32603`.
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>>;

    /// The `inputSchema` implied by the parameters: `Args<T>`'s schema, or a schema that
    /// accepts only an empty object.
    fn input_schema() -> JsonObject;

    /// The `outputSchema` implied by the return type.
    fn output_schema() -> Option<JsonObject>;
}

impl<H, M> ToolHandler<M> for H
where
    H: Handler<ToolCallParts, M>,
    H::Output: IntoCallToolResult,
{
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        match Handler::call(self, parts) {
            Ok(future) => Box::pin(async move { future.await.into_outcome() }),
            Err(Rejection::Invalid(message)) => Box::pin(async move { Ok(error_result(message)) }),
            Err(rejection) => Box::pin(std::future::ready(Err(rejection.internal()))),
        }
    }

    fn input_schema() -> JsonObject {
        H::input_schema().unwrap_or_else(no_arguments_schema)
    }

    fn output_schema() -> Option<JsonObject> {
        H::Output::output_schema()
    }
}

fn no_arguments_schema() -> JsonObject {
    match json!({"type": "object", "additionalProperties": false}) {
        Value::Object(schema) => schema,
        _ => unreachable!("a literal object"),
    }
}

/// A handler with its marker type erased, so tools of any signature share one registry.
pub(crate) trait ErasedToolHandler: Send + Sync {
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>>;
}

pub(crate) struct Erased<H, M>(pub(crate) H, pub(crate) PhantomData<fn() -> M>);

impl<H: ToolHandler<M>, M: 'static> ErasedToolHandler for Erased<H, M> {
    fn call(&self, parts: ToolCallParts) -> BoxFuture<'static, Result<CallToolResult, ErrorObject>> {
        ToolHandler::call(&self.0, parts)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Sum {
        a: f64,
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Item {
        #[serde(rename = "x/y")]
        x: u8,
    }

    fn refused(arguments: Value) -> String {
        typed_arguments::<Sum>(arguments.as_object().unwrap()).unwrap_err()
    }

    #[test]
    fn arguments_that_do_not_fit_their_type_are_refused_naming_where() {
        assert_eq!(
            refused(json!({"a": "two", "items": []})),
            r#"invalid arguments: /a: invalid type: string "two", expected f64"#
        );
        assert!(
            refused(json!({"a": 1, "items": [{"x/y": 1}, {"x/y": -1}]}))
                .starts_with("invalid arguments: /items/1/x~1y: ")
        );
        assert_eq!(refused(json!({"a": 1})), "invalid arguments: (root): missing field `items`");
        assert!(typed_arguments::<Sum>(json!({"a": 1, "items": [{"x/y": 2}]}).as_object().unwrap()).is_ok());
    }
}
