//! Layers whose work is one async function of the request and the service inside them.

use std::task::{Context, Poll};

use futures::future::BoxFuture;
use modelctx_protocol::jsonrpc::ErrorObject;
use tower::{BoxError, Service};

use super::{McpRequest, McpService};
use crate::server::Answer;

/// A layer written as one async function: it gets each request and the service inside it, and
/// answers (calling `inner` or not). Implement it, then `Layer<McpService>` with
/// `type Service = AroundService<Self>` and [`AroundService::new`].
pub trait Around: Clone + Send + Sync + 'static {
    /// Answers `request`, with `inner` to call.
    fn around(
        &self,
        inner: McpService,
        request: McpRequest,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>>;
}

/// The service of an [`Around`] layer.
#[derive(Clone)]
pub struct AroundService<A> {
    around: A,
    inner: McpService,
}

impl<A: Around> AroundService<A> {
    /// `around` over `inner`.
    pub fn new(around: A, inner: McpService) -> Self {
        Self { around, inner }
    }
}

impl<A: Around> Service<McpRequest> for AroundService<A> {
    type Response = Answer;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Answer, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let answered = self.around.around(self.inner.clone(), request);
        Box::pin(async move { answered.await.map_err(|error| Box::new(error) as BoxError) })
    }
}
