//! Requests made on behalf of another client: a gateway's backend calls carry what its own
//! client declared, so that each backend asks only what that client can answer and logs only
//! what it asked for.

use std::future::Future;

use modelctx_protocol::model::ClientCapabilities;
use modelctx_protocol::types::LoggingLevel;

use super::ClientOptions;

/// What another client declared with the request being served.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OnBehalf {
    /// Its capabilities, sent (in the 2026-07-28 form) in place of this client's own; `None`
    /// keeps this client's.
    pub capabilities: Option<ClientCapabilities>,
    /// The log level it asked for, in place of [`super::Client::set_log_level`]'s; `None`
    /// asks for no log messages.
    pub log_level: Option<LoggingLevel>,
    /// Whether the request being served may become a task: tool calls are then made as
    /// [`ClientOptions::tasks`] makes them (the tasks extension
    /// declared, a 2025-11-25 server asked for a task where the tool allows one).
    pub tasks: bool,
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

/// Whether tool calls made from here may run as tasks: [`ClientOptions::tasks`], or the
/// request being served on behalf of another client may become a task ([`OnBehalf::tasks`]).
/// Such requests declare the tasks extension (2026-07-28), and a 2025-11-25 server is asked for
/// a task where the tool allows one.
pub(super) fn wants_tasks(options: &ClientOptions) -> bool {
    options.tasks || BEHALF.try_with(|behalf| behalf.tasks).unwrap_or(false)
}
