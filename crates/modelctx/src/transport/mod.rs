//! Transports: how bytes reach a [`crate::server::Server`].

/// Makes an endpoint with an `async fn handle(&self, Request<B>) -> Response<McpBody>` a
/// `tower::Service` (and so a hyper service or an axum route).
#[cfg(feature = "http-server")]
macro_rules! service_via_handle {
    ($endpoint:ty) => {
        impl<B> tower_service::Service<http::Request<B>> for $endpoint
        where
            B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
            B::Error: std::fmt::Display,
        {
            type Response = http::Response<$crate::transport::http::McpBody>;
            type Error = std::convert::Infallible;
            type Future = std::pin::Pin<
                Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>,
            >;

            fn poll_ready(
                &mut self,
                _: &mut std::task::Context<'_>,
            ) -> std::task::Poll<Result<(), Self::Error>> {
                std::task::Poll::Ready(Ok(()))
            }

            fn call(&mut self, request: http::Request<B>) -> Self::Future {
                let service = self.clone();
                Box::pin(async move { Ok(service.handle(request).await) })
            }
        }
    };
}
#[cfg(feature = "http-server")]
use service_via_handle;

#[cfg(feature = "server")]
pub(crate) mod connection;
#[cfg(feature = "server")]
pub(crate) mod desk;
pub(crate) mod framing;
#[cfg(feature = "http-server")]
pub mod http;
#[cfg(feature = "http-sse")]
pub mod http_sse;
#[cfg(feature = "server")]
mod line_out;
#[cfg(feature = "server")]
pub(crate) mod lines;
#[cfg(feature = "server")]
pub mod stdio;
#[cfg(all(unix, feature = "server"))]
mod stdio_pipes;
#[cfg(feature = "server")]
mod stdio_threads;
#[cfg(all(feature = "stdio-v2", feature = "http-server"))]
pub mod stdio_v2;

#[cfg(feature = "server")]
pub use lines::serve_connection;

/// Completes on SIGTERM or Ctrl-C: the shutdown signal of a server process.
#[cfg(feature = "server")]
pub async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
