//! The async runtime the commands run on.

use std::future::Future;

use crate::inspect::exit::Failure;

/// Runs `future` to completion on a multi-threaded runtime. A runtime that cannot start is a
/// [`Failure::Unreachable`]. Threads still blocked when it ends (a terminal prompt, a read of
/// stdin) are not waited for.
pub fn block_on<T>(future: impl Future<Output = T>) -> Result<T, Failure> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Unreachable(format!("cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(future);
    runtime.shutdown_background();
    Ok(outcome)
}
