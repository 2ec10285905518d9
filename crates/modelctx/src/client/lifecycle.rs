//! A spawned server's life seen through a shared reference, for callers that hold the client
//! in an `Arc` (a host): when it exits, and shutting it down without owning the client.

use std::future::Future;
use std::time::Duration;

use super::{Client, UNBOUNDED};

impl Client {
    /// Resolves once a spawned server has exited, with how it exited (`the server X was
    /// ended by signal 9`). For a connection that is not a child process it never resolves.
    pub fn server_exited(&self) -> impl Future<Output = String> + Send + 'static {
        let exited = self.process.as_ref().map(|process| process.exited(UNBOUNDED));
        async move {
            match exited {
                Some(exited) => match exited.await {
                    Some(how) => how,
                    None => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        }
    }

    /// Shuts a spawned server down as [`Client::close`] does (stdin closed, then SIGTERM, then
    /// SIGKILL, each after the grace period), through a shared reference; resolves with how it
    /// exited. Requests still pending fail ([`super::ClientError::is_closed`]). Does nothing
    /// for a connection that is not a child process (`None` at once).
    pub fn shut_down(&self) -> impl Future<Output = Option<String>> + Send + 'static {
        let wait = self.options.shutdown_grace * 3 + Duration::from_secs(1);
        let exited = self.process.as_ref().map(|process| {
            process.stop.cancel();
            process.exited(wait)
        });
        async move {
            match exited {
                Some(exited) => exited.await,
                None => None,
            }
        }
    }
}
