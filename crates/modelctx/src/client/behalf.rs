//! Requests made on behalf of another client: a gateway's backend calls carry what its own
//! client declared, so that each backend asks only what that client can answer and logs only
//! what it asked for.

use std::future::Future;

use modelctx_protocol::model::ClientCapabilities;
use modelctx_protocol::types::LoggingLevel;

/// What another client declared with the request being served.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OnBehalf {
    /// Its capabilities, sent (in the 2026-07-28 form) in place of this client's own; `None`
    /// keeps this client's.
    pub capabilities: Option<ClientCapabilities>,
    /// The log level it asked for, in place of [`super::Client::set_log_level`]'s; `None`
    /// asks for no log messages.
    pub log_level: Option<LoggingLevel>,
}

tokio::task_local! {
    static BEHALF: OnBehalf;
}

/// Runs `work` with every 2026-07-28 request a client sends from it carrying `behalf`'s
/// capabilities and log level in its `_meta`. A 2025-11-25 session declared its capabilities
/// once, at `initialize`, and is not changed.
pub async fn on_behalf<T>(behalf: OnBehalf, work: impl Future<Output = T>) -> T {
    BEHALF.scope(behalf, work).await
}

/// The client the running request is made for, if it is made for one.
pub(super) fn current() -> Option<OnBehalf> {
    BEHALF.try_with(OnBehalf::clone).ok()
}
