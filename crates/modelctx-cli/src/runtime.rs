//! The async runtime the commands run on.

use std::future::Future;

use crate::inspect::exit::Failure;

/// Runs `future` to completion on a multi-threaded runtime. A runtime that cannot start is a
/// [`Failure::Unreachable`]. Threads still blocked when it ends (a terminal prompt, a read of
/// stdin) are not waited for.
pub fn block_on<T>(future: impl Future<Output = T>) -> Result<T, Failure> {
    block_on_threads(None, future)
}

/// [`block_on`] with `threads` workers (one: a current-thread runtime, the lightest).
pub fn block_on_threads<T>(threads: Option<usize>, future: impl Future<Output = T>) -> Result<T, Failure> {
    let runtime = modelctx_servers::process::runtime(threads)
        .map_err(|e| Failure::Unreachable(format!("cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(future);
    runtime.shutdown_background();
    Ok(outcome)
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
