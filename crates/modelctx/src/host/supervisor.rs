//! One task per server: connects, lists its tools, follows `notifications/tools/list_changed`,
//! and starts a stdio server again when it exits — or connects to an HTTP server again when a
//! request could not reach it — with backoff, until the host shuts down.

use std::sync::Arc;

use futures::{Stream, StreamExt};
use modelctx_protocol::v2026::SubscriptionFilter;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{HostChange, Listing, ServerState, Shared, Slot};
use crate::client::{Client, ClientError};
use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::{Era, Method};

/// Why a connection's watch ended.
enum Ended {
    /// The server process exited: how.
    Exited(String),
    /// The host is shutting down.
    Closing,
}

/// Runs server `name` until it is stopped (the host shuts down, or a new configuration drops
/// or changes it) or given up on. `settled` is sent once the first attempt has connected or
/// failed.
pub(super) async fn supervise(
    shared: Arc<Shared>,
    name: String,
    slot: Arc<Slot>,
    settled: oneshot::Sender<()>,
) {
    let slot = &*slot;
    let policy = shared.options.restart;
    let mut settled = Some(settled);
    let mut failures = 0_u32;
    loop {
        let connected = tokio::select! {
            connected = connect(&shared, &name, slot) => connected,
            () = slot.stop.cancelled() => break,
        };
        match connected {
            Ok((client, listing)) => {
                let client = Arc::new(client);
                let up_since = Instant::now();
                slot.connected(&client, listing, settled.is_none());
                shared.rebuild();
                settle(&mut settled);
                match watch(&shared, slot, &name, &client).await {
                    Ended::Closing => {
                        slot.disconnect(ServerState::Stopped);
                        drain(&shared, slot, &name).await;
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
            () = slot.stop.cancelled() => break,
        }
    }
    slot.disconnect(ServerState::Stopped);
    shared.rebuild();
    settle(&mut settled);
}

/// Lets the calls in flight to a server that is being stopped end, within its time limit: a
/// new configuration that drops or changes it does not cut them short. When the host shuts
/// down they fail instead, and nothing is waited for.
async fn drain(shared: &Shared, slot: &Slot, name: &str) {
    if shared.closing.is_cancelled() {
        return;
    }
    slot.calls.close();
    let limit = slot.config.timeout.unwrap_or(shared.options.default_timeout);
    if tokio::time::timeout(limit, slot.calls.wait()).await.is_err() {
        tracing::warn!(server = %name, calls = slot.calls.len(), "calls still in flight to a server stopped by a new configuration");
    }
}

fn settle(settled: &mut Option<oneshot::Sender<()>>) {
    if let Some(settled) = settled.take() {
        let _ = settled.send(());
    }
}

/// Connects to server `name` and lists its tools and prompts, within the connect timeout.
async fn connect(shared: &Shared, name: &str, slot: &Slot) -> Result<(Client, Listing), String> {
    let mut options = shared.options.client.clone();
    if let Some(handlers) = &shared.options.handlers_for {
        options.handlers = (handlers.0)(name);
    }
    if let Some(auth) = shared.options.auth_for.as_ref().and_then(|auth_for| (auth_for.0)(name)) {
        options.auth = Some(auth);
    }
    options.request_timeout = shared.options.default_timeout;
    let log_level = shared.options.log_level;
    let attempt = async {
        let client = slot.config.connect(options).await?;
        if let Some(level) = log_level
            && client.era() == Era::Legacy
            && client.server().capabilities.logging.is_some()
        {
            client.set_log_level(level).await?;
        }
        let listing = list_offered(&client).await?;
        Ok::<_, ClientError>((client, listing))
    };
    let within = shared.options.connect_timeout;
    match tokio::time::timeout(within, attempt).await {
        Ok(Ok(connected)) => Ok(connected),
        Ok(Err(e)) => Err(format!("could not connect: {e}")),
        Err(_) => Err(format!("could not connect within {}s", within.as_secs_f64())),
    }
}

/// The server's tools, prompts, resources and resource templates; none of a kind it does not
/// offer.
async fn list_offered(client: &Client) -> Result<Listing, ClientError> {
    let offers = &client.server().capabilities;
    let tools = if offers.tools.is_some() { client.list_tools().await? } else { Vec::new() };
    let prompts = if offers.prompts.is_some() { client.list_prompts().await? } else { Vec::new() };
    let (resources, templates) = if offers.resources.is_some() {
        (client.list_resources().await?, client.list_resource_templates().await?)
    } else {
        (Vec::new(), Vec::new())
    };
    let tasks = tools.iter().map(|tool| (tool.name.clone(), client.task_support(&tool.name))).collect();
    Ok(Listing { tools, tasks, prompts, resources, templates })
}

/// Watches a connection until the server exits or the host shuts down, listing what the
/// server offers again on each tools, prompts or resources list change.
async fn watch(shared: &Shared, slot: &Slot, name: &str, client: &Client) -> Ended {
    // A stdio server exits; an HTTP server is lost when a request to it cannot reach it.
    let exited = async {
        tokio::select! {
            how = client.server_exited() => how,
            () = slot.lost.notified() => format!("the server stopped answering at {}", describe(slot)),
        }
    };
    tokio::pin!(exited);
    let offers = &client.server().capabilities;
    let announces = |kind: Option<&crate::protocol::types::ListChangedCapability>| {
        kind.is_some_and(|kind| kind.list_changed == Some(true))
    };
    let (tools, prompts) = (announces(offers.tools.as_ref()), announces(offers.prompts.as_ref()));
    let resources = offers.resources.as_ref().is_some_and(|r| r.list_changed == Some(true));
    // Updates of the resources listed now, for the host's users (a gateway's subscribers).
    let watched: Vec<String> = if offers.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)) {
        let listed = slot.state().listing.as_ref().map(|l| l.resources.clone()).unwrap_or_default();
        listed.into_iter().take(MAX_WATCHED).map(|resource| resource.uri).collect()
    } else {
        Vec::new()
    };
    let mut changes = None;
    if tools || prompts || resources || !watched.is_empty() {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(tools).filter(|on| *on),
            prompts_list_changed: Some(prompts).filter(|on| *on),
            resources_list_changed: Some(resources).filter(|on| *on),
            resource_subscriptions: Some(watched).filter(|uris| !uris.is_empty()),
            ..SubscriptionFilter::default()
        };
        tokio::select! {
            listening = client.listen(filter) => match listening {
                Ok(stream) => changes = Some(Box::pin(stream)),
                Err(e) => {
                    tracing::warn!(server = %name, error = %e, "cannot follow the server's tool and prompt changes");
                }
            },
            how = &mut exited => return Ended::Exited(how),
            () = slot.stop.cancelled() => return Ended::Closing,
        }
        // A change between the first listing and the subscription was told to no one: list
        // once more, now that every later change will be heard.
        if changes.is_some() && !refresh(shared, slot, name, client).await {
            return Ended::Closing;
        }
    }
    loop {
        tokio::select! {
            how = &mut exited => return Ended::Exited(how),
            () = slot.stop.cancelled() => return Ended::Closing,
            change = next(&mut changes) => {
                let Some(change) = change else {
                    changes = None;
                    continue;
                };
                if let Some(uri) = updated(&change) {
                    shared.tell(HostChange::ResourceUpdated(shared.registry().host_uri(name, &uri)));
                    continue;
                }
                if !refresh(shared, slot, name, client).await {
                    return Ended::Closing;
                }
            }
        }
    }
}

/// Lists the server's tools again into the registry; `false` when the host shut down first.
async fn refresh(shared: &Shared, slot: &Slot, name: &str, client: &Client) -> bool {
    tokio::select! {
        listed = list_offered(client) => {
            match listed {
                Ok(listing) => {
                    slot.refreshed(listing);
                    shared.rebuild();
                }
                Err(e) => {
                    tracing::warn!(server = %name, error = %e, "the tools and prompts could not be listed again");
                    slot.record_error(format!("could not list the changed tools and prompts: {e}"));
                }
            }
            true
        }
        () = slot.stop.cancelled() => false,
    }
}

/// The resources of one server whose updates the host follows, at most.
const MAX_WATCHED: usize = 256;

/// The URI of a `notifications/resources/updated`.
fn updated(note: &Notification) -> Option<String> {
    let params = note.params.as_ref().filter(|_| note.method == Method::ResourceUpdated)?;
    params.get("uri").and_then(serde_json::Value::as_str).map(str::to_owned)
}

/// Where an HTTP server is, for a message.
fn describe(slot: &Slot) -> String {
    match &slot.config.transport {
        super::config::Transport::Http(server) => server.url.to_string(),
        super::config::Transport::Stdio(server) => server.command.clone(),
    }
}

/// The next item of `stream`; pending forever when there is none.
async fn next<S: Stream + Unpin>(stream: &mut Option<S>) -> Option<S::Item> {
    match stream {
        Some(stream) => stream.next().await,
        None => std::future::pending().await,
    }
}
