//! The lifecycle's own layers, on by default around every server's layers: [`CatchPanic`]
//! (outermost: a panicking handler or layer is answered `-32603` naming the panic),
//! [`ArrivalDeadline`] (the request ends at [`crate::server::Limits::request_timeout`]
//! counted from its arrival: the work it started is cancelled and it is answered `-32603`)
//! and [`Turn`] (it waits for one of the endpoint's [`crate::server::Limits::max_in_flight`]
//! turns; `subscriptions/listen`, which mostly waits, takes none).
//!
//! [`crate::server::ServerBuilder::without_lifecycle_layers`] leaves them out, for a server
//! that puts them elsewhere among its own layers (`.layer(Turn)` innermost, say, so that a
//! rate limit refuses before a request waits for a turn) — or leaves one out knowingly:
//! without `CatchPanic` a panicking handler's request is never answered.
//!
//! By default they run composed directly, with no boxed service between them (what every
//! request pays); as layers they wrap any service, as `tower` layers do.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::FutureExt as _;
use futures::future::BoxFuture;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use tower::{Layer, Service};

use super::McpRequest;
use crate::server::{Answer, RequestContext};

/// The answer of a request on its way back through the layers.
type Answered = Result<Answer, ErrorObject>;

/// Runs `work` for a request of `method`, answering a panic with `-32603` naming it. Not an
/// `async fn`, which would hold `work` twice (as its argument and as what it awaits).
pub(crate) fn catching_panic<'a>(
    method: &'a Method,
    work: impl Future<Output = Answered> + 'a,
) -> impl Future<Output = Answered> + 'a {
    AssertUnwindSafe(work).catch_unwind().map(move |caught| {
        caught.unwrap_or_else(|panic| {
            let why = panic_message(&*panic);
            tracing::error!(%method, panic = why, "a request handler panicked");
            Err(ErrorObject::internal(format!("the handler of {method} panicked: {why}")))
        })
    })
}

/// Runs `work` until the request's arrival deadline, if it has one; past it, cancels the work
/// the handler started and answers `-32603`.
pub(crate) async fn within_deadline(ctx: &RequestContext, work: impl Future<Output = Answered>) -> Answered {
    let Some((deadline, limit)) = ctx.deadline() else { return work.await };
    let mut work = std::pin::pin!(work);
    // The timer is made only once the work waits: most requests are answered in their first
    // poll, and a timer costs its making, its registration and its removal.
    let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
    let answered = std::future::poll_fn(|cx| {
        if let Poll::Ready(answered) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(answered));
        }
        let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        timer.as_mut().poll(cx).map(|()| None)
    })
    .await;
    match answered {
        Some(answered) => answered,
        None => {
            // Work the handler started watches its token; the request is answered all the same.
            ctx.expire();
            Err(ErrorObject::internal(format!(
                "the request did not finish within {}s of its arrival and was cancelled",
                limit.as_secs_f64()
            )))
        }
    }
}

/// Runs `work` in one of the endpoint's turns (a request without one, a subscription, runs at
/// once).
pub(crate) async fn in_turn(ctx: &RequestContext, work: impl Future<Output = Answered>) -> Answered {
    let _turn = match ctx.turns() {
        Some(turns) => Some(turns.take().await),
        None => None,
    };
    work.await
}

/// What a panic said, when it said it with a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Declares a lifecycle layer and its service: what it keeps of a request, and the step it
/// takes around the wrapped service's answer with it.
macro_rules! lifecycle_layer {
    (
        $(#[$meta:meta])* $name:ident, $(#[$smeta:meta])* $service:ident,
        keep |$request:ident| $kept:expr, around |$held:ident, $work:ident| $step:expr
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        $(#[$smeta])*
        #[derive(Clone, Debug)]
        pub struct $service<S> {
            inner: S,
        }

        impl<S> Layer<S> for $name {
            type Service = $service<S>;

            fn layer(&self, inner: S) -> Self::Service {
                $service { inner }
            }
        }

        impl<S> Service<McpRequest> for $service<S>
        where
            S: Service<McpRequest, Response = Answer, Error = ErrorObject>,
            S::Future: Send + 'static,
        {
            type Response = Answer;
            type Error = ErrorObject;
            type Future = BoxFuture<'static, Answered>;

            fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ErrorObject>> {
                self.inner.poll_ready(cx)
            }

            fn call(&mut self, $request: McpRequest) -> Self::Future {
                let $held = $kept;
                let $work = self.inner.call($request);
                Box::pin(async move { $step })
            }
        }
    };
}

lifecycle_layer!(
    /// Answers a request whose handler (or an inner layer) panicked with `-32603` naming the
    /// panic, so that every admitted request is answered or cancelled.
    CatchPanic,
    /// The service of [`CatchPanic`].
    CatchPanicService,
    keep |request| request.method.clone(),
    around |method, work| catching_panic(&method, work).await
);

lifecycle_layer!(
    /// Ends a request at its arrival deadline ([`crate::server::Limits::request_timeout`],
    /// counted from arrival, so time spent waiting for a turn counts): the work it started is
    /// cancelled and it is answered `-32603`.
    ArrivalDeadline,
    /// The service of [`ArrivalDeadline`].
    ArrivalDeadlineService,
    keep |request| request.ctx.clone(),
    around |ctx, work| within_deadline(&ctx, work).await
);

lifecycle_layer!(
    /// Waits for one of the endpoint's [`crate::server::Limits::max_in_flight`] turns before
    /// the request goes on, and holds it until the answer; `subscriptions/listen` takes none.
    Turn,
    /// The service of [`Turn`].
    TurnService,
    keep |request| request.ctx.clone(),
    around |ctx, work| in_turn(&ctx, work).await
);
