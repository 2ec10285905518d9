//! Prompts: named message templates with arguments.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::{Icon, Prompt, PromptArgument, PromptMessage};

use super::completion::{Completer, completer};
use super::context::RequestContext;
use super::error::RegistrationError;
use super::middleware::{Layered, layer_setter};

/// A `prompts/get` as a handler sees it.
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
    Arc<dyn Fn(PromptRequest) -> BoxFuture<'static, Result<Vec<PromptMessage>, PromptError>> + Send + Sync>;

/// A prompt to register.
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) get: GetFn,
    pub(crate) completers: BTreeMap<String, Completer>,
    pub(crate) layers: Layered,
}

impl PromptDef {
    /// A prompt named `name`, produced by `handler`.
    pub fn new<F, Fut>(name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(PromptRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<PromptMessage>, PromptError>> + Send + 'static,
    {
        Self {
            prompt: Prompt { name: name.into(), ..Prompt::default() },
            get: Arc::new(move |request| Box::pin(handler(request))),
            completers: BTreeMap::new(),
            layers: Layered::default(),
        }
    }

    layer_setter!();

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
    pub fn complete<F, Fut>(mut self, argument: impl Into<String>, handler: F) -> Self
    where
        F: Fn(super::CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
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
        (self.get)(PromptRequest { ctx, arguments }).await.map_err(ErrorObject::from)
    }
}
