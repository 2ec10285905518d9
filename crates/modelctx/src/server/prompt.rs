//! Prompts: named message templates with arguments.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::{Icon, Prompt, PromptArgument, PromptMessage};
use serde_json::Value;

use super::cache_hints::cache_setter;
use super::completion::{Completer, completer};
use super::context::RequestContext;
use super::error::RegistrationError;
use super::extract::{Handler, IntoOutput, Rejection};
use super::middleware::{Layered, layer_setter};
use super::options::CacheDefaults;

/// A `prompts/get` as a handler sees it.
#[derive(Clone)]
pub struct PromptRequest {
    /// The request context.
    pub ctx: RequestContext,
    /// The argument values (every required argument is present).
    pub arguments: BTreeMap<String, String>,
}

/// Why a prompt could not be produced.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptError {
    /// The arguments are unusable (`-32602`); the message says why.
    InvalidArguments(String),
    /// Producing the prompt failed (`-32603`).
    Failed(String),
}

impl From<PromptError> for ErrorObject {
    fn from(error: PromptError) -> Self {
        match error {
            PromptError::InvalidArguments(message) => ErrorObject::invalid_params(message),
            PromptError::Failed(message) => ErrorObject::internal(message),
        }
    }
}

type GetFn =
    Arc<dyn Fn(PromptRequest) -> BoxFuture<'static, Result<Vec<PromptMessage>, ErrorObject>> + Send + Sync>;

/// The arguments a prompt's [`crate::server::Args<T>`] schema declares: each property, with
/// its description, required as the schema says.
fn arguments_of(schema: &JsonObject) -> Vec<PromptArgument> {
    let required = |name: &str| {
        schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|n| n == name))
    };
    let properties = schema.get("properties").and_then(Value::as_object).into_iter().flatten();
    properties
        .map(|(name, property)| PromptArgument {
            name: name.clone(),
            description: property.get("description").and_then(Value::as_str).map(str::to_owned),
            required: Some(required(name)),
            title: property.get("title").and_then(Value::as_str).map(str::to_owned),
        })
        .collect()
}

/// A prompt to register.
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) get: GetFn,
    pub(crate) completers: BTreeMap<String, Completer>,
    pub(crate) layers: Layered,
    pub(crate) cache: Option<CacheDefaults>,
}

impl PromptDef {
    /// A prompt named `name`, produced by `handler`, whose parameters are extractors: the
    /// whole [`PromptRequest`], or [`crate::server::Args<T>`] (whose schema declares the
    /// prompt's arguments), [`RequestContext`], [`crate::server::State<T>`]. Arguments that
    /// do not fit `T` are `-32602`.
    pub fn new<H, M>(name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<PromptRequest, M>,
        H::Output: IntoOutput<Vec<PromptMessage>, PromptError>,
    {
        let arguments = H::input_schema().map(|schema| arguments_of(&schema)).filter(|a| !a.is_empty());
        let get: GetFn = Arc::new(move |request| match handler.call(request) {
            Ok(messages) => Box::pin(async move { messages.await.into_output().map_err(ErrorObject::from) }),
            Err(Rejection::Invalid(why)) => {
                Box::pin(std::future::ready(Err(ErrorObject::invalid_params(why))))
            }
            Err(rejection) => Box::pin(std::future::ready(Err(rejection.internal()))),
        });
        Self {
            prompt: Prompt { name: name.into(), arguments, ..Prompt::default() },
            get,
            completers: BTreeMap::new(),
            layers: Layered::default(),
            cache: None,
        }
    }

    /// A prompt described by `prompt` whole — as another server listed it, for a proxy or a
    /// gateway — produced by `handler`.
    pub fn listed<H, M>(prompt: Prompt, handler: H) -> Self
    where
        H: Handler<PromptRequest, M>,
        H::Output: IntoOutput<Vec<PromptMessage>, PromptError>,
    {
        Self { prompt, ..Self::new(String::new(), handler) }
    }

    layer_setter!();
    cache_setter!();

    /// What the prompt is for.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// A human-readable name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// Icons for display.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.prompt.icons = Some(icons);
        self
    }

    /// Declares an argument.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.prompt.arguments.get_or_insert_with(Vec::new).push(PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: Some(required),
            title: None,
        });
        self
    }

    /// Completes values of the argument `argument`.
    pub fn complete<H, M>(mut self, argument: impl Into<String>, handler: H) -> Self
    where
        H: Handler<super::CompletionRequest, M, Output = Vec<String>>,
    {
        self.completers.insert(argument.into(), completer(handler));
        self
    }

    /// The description `prompts/list` shows.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    pub(crate) fn check(&self) -> Result<(), RegistrationError> {
        let declared = |name: &str| self.prompt.arguments.iter().flatten().any(|a| a.name == name);
        match self.completers.keys().find(|name| !declared(name)) {
            Some(unknown) => Err(RegistrationError::Prompt {
                name: self.prompt.name.clone(),
                reason: format!(
                    "a completer is registered for {unknown:?}, which is not a declared argument"
                ),
            }),
            None => Ok(()),
        }
    }

    /// Checks the required arguments (PROMPT-06), then runs the handler.
    pub(crate) async fn get(
        &self,
        ctx: RequestContext,
        arguments: BTreeMap<String, String>,
    ) -> Result<Vec<PromptMessage>, ErrorObject> {
        let missing: Vec<&str> = self
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(ErrorObject::invalid_params(format!(
                "prompt {} needs the argument(s): {}",
                self.prompt.name,
                missing.join(", ")
            )));
        }
        (self.get)(PromptRequest { ctx, arguments }).await
    }
}
