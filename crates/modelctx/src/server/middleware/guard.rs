//! The shape of modelctx's own layers: a check before the request, a look at its answer
//! after — a layer without `tower`'s boilerplate.

use std::task::{Context, Poll};

use futures::future::BoxFuture;
use modelctx_protocol::jsonrpc::ErrorObject;
use tower::{BoxError, Service};

use super::{McpRequest, into_error};
use crate::server::Answer;

/// What a layer does around the service it wraps: [`Guard::before`] may refuse the request;
/// [`Guard::after`] sees how it was answered. Wrap a service in one with [`Guarded`].
pub trait Guard: Clone + Send + Sync + 'static {
    /// What `before` hands to `after` for one request. Dropped without `after` when the
    /// request is cancelled.
    type Pending: Send + 'static;

    /// Lets `request` through, or refuses it with the error its client gets.
    fn before(&self, request: &McpRequest) -> Result<Self::Pending, ErrorObject>;

    /// Sees the answer of a request `before` let through.
    fn after(pending: Self::Pending, answered: &Result<Answer, ErrorObject>) {
        let _ = (pending, answered);
    }
}

/// A service wrapped in a [`Guard`]: the service of [`super::RateLimit`] and
/// [`super::Audit`], and of any guard of your own (`Guarded::new(inner, guard)` in your
/// `Layer`).
#[derive(Clone)]
pub struct Guarded<S, G> {
    inner: S,
    guard: G,
}

impl<S, G> Guarded<S, G> {
    /// `inner`, guarded by `guard`.
    pub fn new(inner: S, guard: G) -> Self {
        Self { inner, guard }
    }
}

impl<S, G> Service<McpRequest> for Guarded<S, G>
where
    S: Service<McpRequest, Response = Answer>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    G: Guard,
{
    type Response = Answer;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Answer, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let pending = match self.guard.before(&request) {
            Ok(pending) => pending,
            Err(refusal) => return Box::pin(std::future::ready(Err(Box::new(refusal) as BoxError))),
        };
        let answer = self.inner.call(request);
        Box::pin(async move {
            let answered = answer.await.map_err(|error| into_error(error.into()));
            G::after(pending, &answered);
            answered.map_err(|error| Box::new(error) as BoxError)
        })
    }
}
