//! Transports: how bytes reach a [`crate::server::Server`].

mod connection;
pub mod http;
#[cfg(feature = "http-sse")]
pub mod http_sse;
pub mod stdio;

pub use connection::serve_connection;

/// Completes on SIGTERM or Ctrl-C: the shutdown signal of a server process.
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
