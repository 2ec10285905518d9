//! Argument completion (`completion/complete`) for prompt arguments and template variables.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::types::Completion;

use super::context::RequestContext;

/// A `completion/complete` as a completer sees it.
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

pub(crate) type Completer = Arc<dyn Fn(CompletionRequest) -> BoxFuture<'static, Vec<String>> + Send + Sync>;

pub(crate) fn completer<F, Fut>(handler: F) -> Completer
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Vec<String>> + Send + 'static,
{
    Arc::new(move |request| Box::pin(handler(request)))
}

/// At most this many values travel in one answer (COMP-02).
const MAX_VALUES: usize = 100;

/// The `completion` member for `values`, capped at 100 with `total` and `hasMore`.
pub(crate) fn completion(mut values: Vec<String>) -> Completion {
    let total = values.len();
    values.truncate(MAX_VALUES);
    Completion { has_more: Some(total > values.len()), total: Some(total as u64), values }
}
