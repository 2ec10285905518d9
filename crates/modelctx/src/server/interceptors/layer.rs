//! A chain around the requests a server serves: a request's params judged and rewritten as
//! they arrive (receiving), its result as it leaves (sending). The payload an interceptor sees
//! is `{"method", "params"}` in the request phase and `{"method", "result"}` in the response
//! phase; `_meta` stays out of reach and is kept as it was.

use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::interceptors::{InvocationContext, Phase, Principal, execution_failed};
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::{JsonObject, Method};
use serde_json::{Value, json};
use tower::{Layer, ServiceExt};

use super::{Chain, Direction};
use crate::server::middleware::{Around, AroundService, McpRequest, McpService};
use crate::server::{Answer, RequestContext};

/// Runs a [`Chain`] around every request whose method one of its interceptors hooks into.
#[derive(Clone, Debug)]
pub struct InterceptorLayer {
    chain: Arc<Chain>,
}

impl InterceptorLayer {
    /// The layer of `chain`.
    pub fn new(chain: Chain) -> Self {
        Self { chain: Arc::new(chain) }
    }
}

impl Layer<McpService> for InterceptorLayer {
    type Service = AroundService<Self>;

    fn layer(&self, inner: McpService) -> AroundService<Self> {
        AroundService::new(self.clone(), inner)
    }
}

impl Around for InterceptorLayer {
    fn around(
        &self,
        inner: McpService,
        request: McpRequest,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        let chain = Arc::clone(&self.chain);
        Box::pin(async move {
            let event = request.method.as_str().to_owned();
            let (before, after) =
                (chain.runs_on(&event, Phase::Request), chain.runs_on(&event, Phase::Response));
            if before || after {
                intercept(&chain, inner, request, &event, (before, after)).await
            } else {
                inner.oneshot(request).await
            }
        })
    }
}

/// The request through the chain, the inner service, and its result through the chain.
async fn intercept(
    chain: &Chain,
    inner: McpService,
    mut request: McpRequest,
    event: &str,
    (before, after): (bool, bool),
) -> Result<Answer, ErrorObject> {
    let context = context_of(&request.ctx);
    if before {
        let mut params = request.params.take().unwrap_or_default();
        let meta = params.remove("_meta");
        let payload = json!({"method": event, "params": params});
        let outcome =
            chain.execute(event, Phase::Request, Direction::Receiving, payload, Some(&context)).await;
        log(&request.method, &outcome);
        let mut params = member(outcome.into_payload()?, "params")?;
        if let Some(meta) = meta {
            params.insert("_meta".into(), meta);
        }
        request.params = Some(params);
    }
    let answer = inner.oneshot(request).await?;
    if !after {
        return Ok(answer);
    }
    let mut result = answer.into_object();
    // A result that asks for input (2026-07-28) is no answer yet: only a complete one is judged.
    if result.get("resultType").is_some_and(|kind| kind != "complete") {
        return Ok(Answer::from(result));
    }
    let meta = result.remove("_meta");
    let payload = json!({"method": event, "result": result});
    let outcome = chain.execute(event, Phase::Response, Direction::Sending, payload, Some(&context)).await;
    log(&Method::from(event), &outcome);
    let mut result = member(outcome.into_payload()?, "result")?;
    if let Some(meta) = meta {
        result.insert("_meta".into(), meta);
    }
    Ok(Answer::from(result))
}

/// The object at `name` of a chain's final payload.
fn member(payload: Value, name: &str) -> Result<JsonObject, ErrorObject> {
    match payload {
        Value::Object(mut payload) => match payload.remove(name) {
            Some(Value::Object(object)) => Ok(object),
            _ => {
                Err(execution_failed("(chain)", &format!("the rewritten payload has no object at {name:?}")))
            }
        },
        _ => Err(execution_failed("(chain)", "the rewritten payload is not an object")),
    }
}

/// What the interceptors are told of the request: who sent it, when, in which session.
fn context_of(ctx: &RequestContext) -> InvocationContext {
    let principal = match ctx.principal() {
        Some(principal) => Principal {
            kind: "user".into(),
            id: Some(principal.subject.clone()),
            claims: Some(principal.claims.clone()),
        },
        None => Principal { kind: "anonymous".into(), id: None, claims: None },
    };
    InvocationContext {
        principal: Some(principal),
        trace_id: None,
        span_id: None,
        timestamp: Some(crate::server::tasks::clock::rfc3339(crate::server::tasks::clock::now_ms())),
        session_id: ctx.session_id().map(str::to_owned),
    }
}

/// Every chain that ran, at debug; one that refused, at info.
fn log(method: &Method, outcome: &super::ChainOutcome) {
    let results = serde_json::to_string(&outcome.results).unwrap_or_default();
    match &outcome.aborted_at {
        Some(aborted) => tracing::info!(
            target: "modelctx::interceptors",
            method = method.as_str(),
            phase = outcome.phase.as_str(),
            interceptor = %aborted.interceptor,
            reason = %aborted.reason,
            %results,
            "the interceptors refused the message"
        ),
        None => tracing::debug!(
            target: "modelctx::interceptors",
            method = method.as_str(),
            phase = outcome.phase.as_str(),
            %results,
            "the interceptors ran"
        ),
    }
}
