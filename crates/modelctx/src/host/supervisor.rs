//! One task per server: connects, lists its tools, follows `notifications/tools/list_changed`,
//! and starts a stdio server again when it exits, with backoff, until the host shuts down.

use std::sync::Arc;

use futures::{Stream, StreamExt};
use modelctx_protocol::model::Tool;
use modelctx_protocol::v2026::SubscriptionFilter;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{ServerState, Shared, Slot};
use crate::client::{Client, ClientError};

/// Why a connection's watch ended.
enum Ended {
    /// The server process exited: how.
    Exited(String),
    /// The host is shutting down.
    Closing,
}

/// Runs server `name` until the host shuts down or the server is given up on. `settled` is
/// sent once the first attempt has connected or failed.
pub(super) async fn supervise(shared: Arc<Shared>, name: String, settled: oneshot::Sender<()>) {
    let slot = &shared.slots[&name];
    let policy = shared.options.restart;
    let mut settled = Some(settled);
    let mut failures = 0_u32;
    loop {
        let connected = tokio::select! {
            connected = connect(&shared, slot) => connected,
            () = shared.closing.cancelled() => break,
        };
        match connected {
            Ok((client, tools)) => {
                let client = Arc::new(client);
                let up_since = Instant::now();
                slot.connected(&client, tools, settled.is_none());
                shared.rebuild();
                settle(&mut settled);
                match watch(&shared, slot, &name, &client).await {
                    Ended::Closing => {
                        slot.disconnect(ServerState::Stopped);
                        if let Some(how) = client.shut_down().await {
                            tracing::debug!(server = %name, "{how}");
                        }
                        break;
                    }
                    Ended::Exited(how) => {
                        tracing::warn!(server = %name, "{how}");
                        if up_since.elapsed() >= policy.reset_after {
                            failures = 0;
                        }
                        slot.record_error(how);
                    }
                }
            }
            Err(why) => {
                tracing::warn!(server = %name, "{why}");
                slot.record_error(why);
                if settled.is_some() {
                    // A server that never connected is not restarted: its command or URL is
                    // wrong far more often than it is unlucky.
                    slot.disconnect(ServerState::Failed);
                    shared.rebuild();
                    settle(&mut settled);
                    return;
                }
            }
        }
        failures += 1;
        if failures > policy.max_attempts {
            tracing::warn!(server = %name, attempts = policy.max_attempts, "giving up on restarting the server");
            slot.disconnect(ServerState::Failed);
            shared.rebuild();
            return;
        }
        slot.disconnect(ServerState::Restarting);
        tokio::select! {
            () = tokio::time::sleep(policy.delay(failures)) => {}
            () = shared.closing.cancelled() => break,
        }
    }
    slot.disconnect(ServerState::Stopped);
    shared.rebuild();
    settle(&mut settled);
}

fn settle(settled: &mut Option<oneshot::Sender<()>>) {
    if let Some(settled) = settled.take() {
        let _ = settled.send(());
    }
}

/// Connects to the slot's server and lists its tools, within the connect timeout.
async fn connect(shared: &Shared, slot: &Slot) -> Result<(Client, Vec<Tool>), String> {
    let mut options = shared.options.client.clone();
    options.request_timeout = shared.options.default_timeout;
    let attempt = async {
        let client = slot.config.connect(options).await?;
        let tools = list_tools(&client).await?;
        Ok::<_, ClientError>((client, tools))
    };
    let within = shared.options.connect_timeout;
    match tokio::time::timeout(within, attempt).await {
        Ok(Ok(connected)) => Ok(connected),
        Ok(Err(e)) => Err(format!("could not connect: {e}")),
        Err(_) => Err(format!("could not connect within {}s", within.as_secs_f64())),
    }
}

/// The server's tools; none when it offers no tools.
async fn list_tools(client: &Client) -> Result<Vec<Tool>, ClientError> {
    if client.server().capabilities.tools.is_none() {
        return Ok(Vec::new());
    }
    client.list_tools().await
}

/// Watches a connection until the server exits or the host shuts down, refreshing the
/// server's tools on each `notifications/tools/list_changed`.
async fn watch(shared: &Shared, slot: &Slot, name: &str, client: &Client) -> Ended {
    let exited = client.server_exited();
    tokio::pin!(exited);
    let announces_changes =
        client.server().capabilities.tools.as_ref().is_some_and(|tools| tools.list_changed == Some(true));
    let mut changes = None;
    if announces_changes {
        let filter = SubscriptionFilter { tools_list_changed: Some(true), ..SubscriptionFilter::default() };
        tokio::select! {
            listening = client.listen(filter) => match listening {
                Ok(stream) => changes = Some(Box::pin(stream)),
                Err(e) => {
                    tracing::warn!(server = %name, error = %e, "cannot follow the server's tool changes");
                }
            },
            how = &mut exited => return Ended::Exited(how),
            () = shared.closing.cancelled() => return Ended::Closing,
        }
    }
    loop {
        tokio::select! {
            how = &mut exited => return Ended::Exited(how),
            () = shared.closing.cancelled() => return Ended::Closing,
            change = next(&mut changes) => {
                if change.is_none() {
                    changes = None;
                    continue;
                }
                tokio::select! {
                    listed = list_tools(client) => match listed {
                        Ok(tools) => {
                            slot.refreshed(tools);
                            shared.rebuild();
                        }
                        Err(e) => {
                            tracing::warn!(server = %name, error = %e, "the tools could not be listed again");
                            slot.record_error(format!("could not list the changed tools: {e}"));
                        }
                    },
                    () = shared.closing.cancelled() => return Ended::Closing,
                }
            }
        }
    }
}

/// The next item of `stream`; pending forever when there is none.
async fn next<S: Stream + Unpin>(stream: &mut Option<S>) -> Option<S::Item> {
    match stream {
        Some(stream) => stream.next().await,
        None => std::future::pending().await,
    }
}
