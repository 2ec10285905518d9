//! Argument completion (`completion/complete`) for prompt arguments and template variables.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::types::Completion;

use modelctx_protocol::jsonrpc::ErrorObject;

use super::context::RequestContext;
use super::extract::{Handler, Rejection};

/// A `completion/complete` as a completer sees it.
#[derive(Clone)]
pub struct CompletionRequest {
    /// The request context.
    pub ctx: RequestContext,
    /// The argument or variable being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Other arguments already chosen (`context.arguments`), which may narrow the answer.
    pub context: BTreeMap<String, String>,
}

/// A completer: the values for a request; `-32603` when it cannot run at all.
pub(crate) type Completer =
    Arc<dyn Fn(CompletionRequest) -> BoxFuture<'static, Result<Vec<String>, ErrorObject>> + Send + Sync>;

/// A completer made of `handler`, whose parameters are extractors. Input that does not fit
/// an extractor completes to nothing.
pub(crate) fn completer<H, M>(handler: H) -> Completer
where
    H: Handler<CompletionRequest, M, Output = Vec<String>>,
{
    Arc::new(move |request| match handler.call(request) {
        Ok(values) => Box::pin(async move { Ok(values.await) }),
        Err(Rejection::Invalid(_)) => Box::pin(std::future::ready(Ok(Vec::new()))),
        Err(rejection) => Box::pin(std::future::ready(Err(rejection.internal()))),
    })
}

/// At most this many values travel in one answer (COMP-02).
const MAX_VALUES: usize = 100;

/// The `completion` member for `values`, capped at 100 with `total` and `hasMore`.
pub(crate) fn completion(mut values: Vec<String>) -> Completion {
    let total = values.len();
    values.truncate(MAX_VALUES);
    Completion { has_more: Some(total > values.len()), total: Some(total as u64), values }
}
