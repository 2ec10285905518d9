//! Interceptors a server hosts: their definitions, and the layer that answers
//! `interceptors/list` and `interceptor/invoke` for them.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use modelctx_protocol::interceptors::{
    Hook, INVOKE, Interceptor, InterceptorType, InvocationContext, InvokeParams, LIST, ListParams,
    ListResult, Mode, MutationResult, Phase, PriorityHint, RunReport, ValidationResult, timeout_error,
    unknown_interceptor,
};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject};
use modelctx_protocol::{JsonObject, Method};
use serde_json::Value;
use tower::{Layer, ServiceExt};

use crate::server::Answer;
use crate::server::middleware::{Around, AroundService, McpRequest, McpService};
use crate::server::params::extension_params;

/// One invocation, as a handler receives it.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// The event (`tools/call`).
    pub event: String,
    /// The phase.
    pub phase: Phase,
    /// What to judge or rewrite.
    pub payload: Value,
    /// The invoker's configuration for this call (empty when it sent none).
    pub config: JsonObject,
    /// The circumstances the invoker told.
    pub context: Option<InvocationContext>,
}

/// What a handler produced.
enum Outcome {
    Validation(ValidationResult),
    /// The new payload, or `None` when unchanged.
    Mutation(Option<Value>),
}

type Handler = Arc<dyn Fn(Invocation) -> BoxFuture<'static, Result<Outcome, ErrorObject>> + Send + Sync>;

/// An interceptor a server hosts: its description and its handler.
#[derive(Clone)]
pub struct InterceptorDef {
    descriptor: Interceptor,
    handler: Handler,
}

impl std::fmt::Debug for InterceptorDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InterceptorDef").field("descriptor", &self.descriptor).finish_non_exhaustive()
    }
}

impl InterceptorDef {
    fn new(name: String, kind: InterceptorType, hooks: Vec<Hook>, handler: Handler) -> Self {
        let descriptor = Interceptor {
            name,
            version: None,
            description: None,
            kind,
            hooks,
            mode: None,
            fail_open: None,
            priority_hint: None,
            compat: None,
            config_schema: None,
        };
        Self { descriptor, handler }
    }

    /// A validator called `name`, run on `hooks`: `check` judges each payload (it must not
    /// change it; it cannot).
    pub fn validator<F, Fut>(name: impl Into<String>, hooks: Vec<Hook>, check: F) -> Self
    where
        F: Fn(Invocation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ValidationResult, ErrorObject>> + Send + 'static,
    {
        let check = Arc::new(check);
        let handler: Handler = Arc::new(move |invocation| {
            let judged = check(invocation);
            Box::pin(async move { judged.await.map(Outcome::Validation) })
        });
        Self::new(name.into(), InterceptorType::Validation, hooks, handler)
    }

    /// A mutator called `name`, run on `hooks`: `mutate` answers the new payload, or `None`
    /// to leave it as it is.
    pub fn mutator<F, Fut>(name: impl Into<String>, hooks: Vec<Hook>, mutate: F) -> Self
    where
        F: Fn(Invocation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Option<Value>, ErrorObject>> + Send + 'static,
    {
        let mutate = Arc::new(mutate);
        let handler: Handler = Arc::new(move |invocation| {
            let mutated = mutate(invocation);
            Box::pin(async move { mutated.await.map(Outcome::Mutation) })
        });
        Self::new(name.into(), InterceptorType::Mutation, hooks, handler)
    }

    /// Its description, for people.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.descriptor.description = Some(description.into());
        self
    }

    /// Its version.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.descriptor.version = Some(version.into());
        self
    }

    /// The mode it suggests (an invoker may override it).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.descriptor.mode = Some(mode);
        self
    }

    /// Whether it suggests its failures let messages through.
    pub fn fail_open(mut self, fail_open: bool) -> Self {
        self.descriptor.fail_open = Some(fail_open);
        self
    }

    /// A mutator's suggested order (lower first).
    pub fn priority(mut self, priority: PriorityHint) -> Self {
        self.descriptor.priority_hint = Some(priority);
        self
    }

    /// The JSON Schema of its `config`.
    pub fn config_schema(mut self, schema: JsonObject) -> Self {
        self.descriptor.config_schema = Some(schema);
        self
    }

    /// What `interceptors/list` says of it.
    pub fn descriptor(&self) -> &Interceptor {
        &self.descriptor
    }

    /// Runs it as `interceptor/invoke` does: on an event and phase it hooks into, within
    /// `params.timeoutMs` (the draft's timeout error past it), its result named, phased and timed.
    pub async fn invoke(&self, params: InvokeParams) -> Result<Value, ErrorObject> {
        let name = &self.descriptor.name;
        if !self.descriptor.hooks_into(&params.event, params.phase) {
            return Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "Interceptor '{name}' does not run on {} in the {} phase",
                    params.event,
                    params.phase.as_str()
                ),
            ));
        }
        let original = (self.descriptor.kind == InterceptorType::Mutation).then(|| params.payload.clone());
        let invocation = Invocation {
            event: params.event,
            phase: params.phase,
            payload: params.payload,
            config: params.config.unwrap_or_default(),
            context: params.context,
        };
        let started = Instant::now();
        let ran = (self.handler)(invocation);
        let outcome = match params.timeout_ms {
            Some(ms) => tokio::time::timeout(Duration::from_millis(ms), ran)
                .await
                .map_err(|_| timeout_error(name, ms, params.phase))??,
            None => ran.await?,
        };
        let duration_ms = Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
        let run = RunReport { interceptor: name.clone(), phase: Some(params.phase), duration_ms, info: None };
        let (kind, result) = match outcome {
            Outcome::Validation(result) => {
                let run = RunReport { info: result.run.info.clone(), ..run };
                ("validation", serde_json::to_value(ValidationResult { run, ..result }))
            }
            Outcome::Mutation(mutated) => {
                let (modified, payload) = match mutated {
                    Some(payload) => (true, payload),
                    None => (false, original.unwrap_or_default()),
                };
                ("mutation", serde_json::to_value(MutationResult { run, modified, payload }))
            }
        };
        let mut result = result.map_err(|e| ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
        if let Value::Object(object) = &mut result {
            object.insert("type".into(), Value::String(kind.into()));
        }
        Ok(result)
    }
}

/// The layer that answers `interceptors/list` and `interceptor/invoke`
/// ([`crate::server::ServerBuilder::interceptors`] adds it).
#[derive(Clone)]
pub(crate) struct Hosting {
    interceptors: Arc<[InterceptorDef]>,
}

impl Hosting {
    pub(crate) fn new(interceptors: Arc<[InterceptorDef]>) -> Self {
        Self { interceptors }
    }
}

impl Layer<McpService> for Hosting {
    type Service = AroundService<Self>;

    fn layer(&self, inner: McpService) -> AroundService<Self> {
        AroundService::new(self.clone(), inner)
    }
}

impl Around for Hosting {
    fn around(
        &self,
        inner: McpService,
        request: McpRequest,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        let interceptors = Arc::clone(&self.interceptors);
        Box::pin(async move {
            match &request.method {
                Method::Other(method) if &**method == LIST => {
                    list(&interceptors, request.params).map(Answer::from)
                }
                Method::Other(method) if &**method == INVOKE => {
                    invoke(&interceptors, request.params).await.map(Answer::from)
                }
                _ => inner.oneshot(request).await,
            }
        })
    }
}

fn list(interceptors: &[InterceptorDef], params: Option<JsonObject>) -> Result<JsonObject, ErrorObject> {
    let params: ListParams = extension_params(LIST, params)?;
    let listed = interceptors.iter().map(InterceptorDef::descriptor).filter(|interceptor| {
        params.event.as_deref().is_none_or(|event| {
            [Phase::Request, Phase::Response].into_iter().any(|phase| interceptor.hooks_into(event, phase))
        })
    });
    let result = ListResult { interceptors: listed.cloned().collect(), next_cursor: None };
    match serde_json::to_value(result) {
        Ok(Value::Object(result)) => Ok(result),
        _ => Err(ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the interceptors could not be listed")),
    }
}

async fn invoke(
    interceptors: &[InterceptorDef],
    params: Option<JsonObject>,
) -> Result<JsonObject, ErrorObject> {
    let params: InvokeParams = extension_params(INVOKE, params)?;
    let hosted = interceptors.iter().find(|hosted| hosted.descriptor.name == params.name);
    let hosted = hosted.ok_or_else(|| unknown_interceptor(&params.name))?;
    match hosted.invoke(params).await? {
        Value::Object(result) => Ok(result),
        _ => Err(ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the interceptor's result is not an object")),
    }
}
