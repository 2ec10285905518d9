//! The async runtime the commands run on.

use std::future::Future;

use tokio::runtime::Runtime;

use crate::inspect::exit::Failure;

/// A runtime with `threads` workers: one is a current-thread runtime (the lightest), `None`
/// one worker per CPU.
fn build(threads: Option<usize>) -> std::io::Result<Runtime> {
    let mut builder = match threads {
        Some(1) => tokio::runtime::Builder::new_current_thread(),
        Some(threads) => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(threads);
            builder
        }
        None => tokio::runtime::Builder::new_multi_thread(),
    };
    builder.enable_all().build()
}

/// Runs `future` to completion on a multi-threaded runtime. A runtime that cannot start is a
/// [`Failure::Unreachable`]. Threads still blocked when it ends (a terminal prompt, a read of
/// stdin) are not waited for.
pub fn block_on<T>(future: impl Future<Output = T>) -> Result<T, Failure> {
    block_on_threads(None, future)
}

/// [`block_on`] with `threads` workers (see [`for_serving`]).
pub fn block_on_threads<T>(threads: Option<usize>, future: impl Future<Output = T>) -> Result<T, Failure> {
    let runtime =
        build(threads).map_err(|e| Failure::Unreachable(format!("cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(future);
    runtime.shutdown_background();
    Ok(outcome)
}

/// The runtime a serving command (`serve`, `gateway`, `inspect --web`) runs on: with
/// `threads` workers (one: a current-thread runtime), one per CPU when `None`; `None`, logged,
/// when it cannot start.
pub fn for_serving(threads: Option<usize>) -> Option<Runtime> {
    match build(threads) {
        Ok(runtime) => Some(runtime),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            None
        }
    }
}

/// Whether `--http address` is refused: an address other than loopback without
/// `--allow-remote` (logged).
pub fn refuses_remote(address: std::net::SocketAddr, allow_remote: bool) -> bool {
    let refused = !address.ip().is_loopback() && !allow_remote;
    if refused {
        tracing::error!(%address, "--http binds loopback addresses only; add --allow-remote to serve other machines");
    }
    refused
}
