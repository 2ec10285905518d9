//! `subscriptions/listen` (2026-07-28): the long-lived request on which a modern client hears
//! of changes, opted into by filter (SUB-01..SUB-09).

use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::v2026::{
    ResultType, SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, SubscriptionsListenResultMetaObject,
};
use modelctx_protocol::{JsonObject, Method, meta, tasks};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::context::{RequestContext, notification};
use super::params::to_object;
use super::{Server, ServerEvent};

/// Whether a subscription to `subscribed` covers a change at `uri`: the resource itself or a
/// sub-resource of it (`file:///dir` covers `file:///dir/a.txt`, not `file:///dir2`) (RES-12).
pub(crate) fn covers(subscribed: &str, uri: &str) -> bool {
    match uri.strip_prefix(subscribed) {
        Some(rest) => rest.is_empty() || subscribed.ends_with('/') || rest.starts_with(['/', '?', '#']),
        None => false,
    }
}

impl Server {
    /// The part of `wanted` this server honours (SUB-03): only what its capabilities offer,
    /// and of the tasks asked for those that exist and are `owner`'s.
    async fn honoured(&self, wanted: SubscriptionFilter, owner: Option<&str>) -> SubscriptionFilter {
        let capabilities = self.capabilities();
        let (tools, prompts, resources) =
            (capabilities.tools.is_some(), capabilities.prompts.is_some(), capabilities.resources.is_some());
        let yes = |flag: Option<bool>, offered: bool| (flag == Some(true) && offered).then_some(true);
        SubscriptionFilter {
            tools_list_changed: yes(wanted.tools_list_changed, tools),
            prompts_list_changed: yes(wanted.prompts_list_changed, prompts),
            resources_list_changed: yes(wanted.resources_list_changed, resources),
            resource_subscriptions: wanted.resource_subscriptions.filter(|_| resources),
            #[cfg(feature = "experimental")]
            events_list_changed: yes(wanted.events_list_changed, self.offers_event_list_changes()),
            task_ids: match wanted.task_ids {
                Some(ids) => {
                    let mut known = Vec::with_capacity(ids.len());
                    for id in ids {
                        if self.inner.tasks.get(&id, owner, &self.inner.announcer).await.is_ok() {
                            known.push(id);
                        }
                    }
                    Some(known)
                }
                None => None,
            },
        }
    }

    /// Whether this server declared events with `listChanged` (experimental).
    #[cfg(feature = "experimental")]
    fn offers_event_list_changes(&self) -> bool {
        let capabilities = self.capabilities();
        let events =
            capabilities.extensions.as_ref().and_then(|e| e.get(modelctx_protocol::events::EXTENSION_ID));
        events.and_then(|settings| settings.get("listChanged")).and_then(serde_json::Value::as_bool)
            == Some(true)
    }

    /// Refuses a filter naming more resource URIs or task ids than
    /// [`Limits::max_subscriptions`](super::Limits::max_subscriptions), or more bytes of them
    /// than [`Limits::max_subscription_bytes`](super::Limits::max_subscription_bytes) (each task
    /// id is a store read, each URI is kept while the listen lasts).
    fn within_bounds(&self, wanted: &SubscriptionFilter) -> Result<(), ErrorObject> {
        let limits = &self.options().limits;
        let named =
            [("resourceSubscriptions", &wanted.resource_subscriptions), ("taskIds", &wanted.task_ids)];
        let mut bytes = 0;
        for (field, names) in named {
            let names = names.as_deref().unwrap_or_default();
            if names.len() > limits.max_subscriptions {
                return Err(ErrorObject::invalid_params(format!(
                    "{field} names {} entries, more than the {} one listen may",
                    names.len(),
                    limits.max_subscriptions
                )));
            }
            bytes += names.iter().map(String::len).sum::<usize>();
        }
        if bytes > limits.max_subscription_bytes {
            return Err(ErrorObject::invalid_params(format!(
                "resourceSubscriptions and taskIds hold {bytes} bytes, more than the {} one listen may",
                limits.max_subscription_bytes
            )));
        }
        Ok(())
    }

    /// Serves one subscription: the acknowledgement first (SUB-02), then each change the
    /// filter asked for, tagged with the subscription id (META-08), until the client cancels
    /// (no response then) or the server ends it: then `notifications/cancelled` naming the
    /// subscription (SUB-07) and the graceful result (SUB-06), or the error that ended it.
    pub(crate) async fn listen(
        &self,
        ctx: &RequestContext,
        params: SubscriptionsListenRequestParams,
    ) -> Result<JsonObject, ErrorObject> {
        let wanted = params.notifications;
        if wanted.task_ids.is_some() && !ctx.client_capabilities().has_extension(tasks::EXTENSION_ID) {
            // TX-15: task notifications need the tasks extension.
            return Err(ErrorObject::missing_client_capability(
                json!({"extensions": {tasks::EXTENSION_ID: {}}}),
            ));
        }
        self.within_bounds(&wanted)?;
        let owner = ctx.principal().map(super::Principal::key);
        let honoured = self.honoured(wanted, owner.as_deref()).await;
        let id = ctx.request_id().clone();
        let tag = json!({ meta::SUBSCRIPTION_ID: id });
        // Subscribe before acknowledging, so no change between the two is lost.
        let mut events = self.events();
        let ack = SubscriptionsAcknowledgedNotificationParams {
            notifications: honoured.clone(),
            meta: Some(serde_json::from_value(tag.clone()).expect("a notification _meta")),
        };
        ctx.notify(Method::SubscriptionsAcknowledged, &ack).await;
        // What is still to be told, coalesced: a listener that reads slowly gets each kind of
        // change once, however often it happened, and the server never waits on it.
        let mut backlog = Backlog::default();
        let bound = self.options().limits.max_listener_backlog;
        loop {
            let event = if backlog.is_empty() {
                tokio::select! {
                    () = ctx.closing().cancelled() => break,
                    event = events.recv() => event,
                }
            } else {
                tokio::select! {
                    biased;
                    () = ctx.closing().cancelled() => break,
                    event = events.recv() => event,
                    room = ctx.room() => {
                        let Some(room) = room else { break };
                        let (method, subject) = backlog.pop().expect("not empty");
                        let params = match subject {
                            // The whole task, as tasks/get would show it now.
                            Some(id) if method == Method::TaskStatus => {
                                let Ok(task) = self.inner.tasks.get(&id, owner.as_deref(), &self.inner.announcer).await else { continue };
                                let mut params = task.notification();
                                params.insert("_meta".into(), tag.clone());
                                serde_json::Value::Object(params)
                            }
                            Some(uri) => json!({"uri": uri, "_meta": tag}),
                            None => json!({"_meta": tag}),
                        };
                        room.send(notification(method, &params));
                        continue;
                    }
                }
            };
            match event {
                Ok(event) => backlog.add(&honoured, event),
                // Changes were missed: tell everything the filter covers, to be safe.
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a subscription missed server events; telling it of every kind");
                    backlog.add_everything(&honoured);
                }
                Err(RecvError::Closed) => break,
            }
            if backlog.len() > bound {
                let why = format!(
                    "this subscription fell more than {bound} changes behind; listen again and re-read what it covers"
                );
                tear_down(ctx, &id, &why).await;
                return Err(ErrorObject::internal(why));
            }
        }
        tear_down(ctx, &id, "the server is shutting down").await;
        Ok(to_object(&SubscriptionsListenResult {
            result_type: ResultType::Complete,
            meta: SubscriptionsListenResultMetaObject {
                subscription_id: id,
                server_info: Some(self.info().clone()),
                other: JsonObject::new(),
            },
        }))
    }
}

/// The changes a listener has yet to hear of, each once: list changes by kind, resource
/// updates by URI, in the order they first happened.
#[derive(Default)]
struct Backlog {
    pending: std::collections::VecDeque<(Method, Option<String>)>,
}

impl Backlog {
    fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    fn len(&self) -> usize {
        self.pending.len()
    }

    fn pop(&mut self) -> Option<(Method, Option<String>)> {
        self.pending.pop_front()
    }

    fn push(&mut self, method: Method, uri: Option<String>) {
        if !self.pending.iter().any(|(m, u)| *m == method && *u == uri) {
            self.pending.push_back((method, uri));
        }
    }

    /// Keeps `event` when the filter asked for it.
    fn add(&mut self, honoured: &SubscriptionFilter, event: ServerEvent) {
        match event {
            ServerEvent::ToolsChanged if honoured.tools_list_changed.is_some() => {
                self.push(Method::ToolListChanged, None)
            }
            ServerEvent::PromptsChanged if honoured.prompts_list_changed.is_some() => {
                self.push(Method::PromptListChanged, None)
            }
            ServerEvent::ResourcesChanged if honoured.resources_list_changed.is_some() => {
                self.push(Method::ResourceListChanged, None)
            }
            ServerEvent::ResourceUpdated(uri)
                if honoured.resource_subscriptions.iter().flatten().any(|s| covers(s, &uri)) =>
            {
                self.push(Method::ResourceUpdated, Some(uri))
            }
            ServerEvent::TaskChanged(id) if honoured.task_ids.iter().flatten().any(|t| *t == id) => {
                self.push(Method::TaskStatus, Some(id))
            }
            #[cfg(feature = "experimental")]
            ServerEvent::EventsChanged if honoured.events_list_changed.is_some() => {
                self.push(Method::from(modelctx_protocol::events::LIST_CHANGED), None)
            }
            _ => {}
        }
    }

    /// Every change the filter covers: what a listener that missed some must assume.
    fn add_everything(&mut self, honoured: &SubscriptionFilter) {
        for event in [ServerEvent::ToolsChanged, ServerEvent::PromptsChanged, ServerEvent::ResourcesChanged] {
            self.add(honoured, event);
        }
        #[cfg(feature = "experimental")]
        self.add(honoured, ServerEvent::EventsChanged);
        for uri in honoured.resource_subscriptions.iter().flatten() {
            self.push(Method::ResourceUpdated, Some(uri.clone()));
        }
        for id in honoured.task_ids.iter().flatten() {
            self.push(Method::TaskStatus, Some(id.clone()));
        }
    }
}

/// Tells the client the server ends subscription `id` (SUB-07: `notifications/cancelled`
/// referencing the `subscriptions/listen` request — the one use of it a server may make).
async fn tear_down(ctx: &RequestContext, id: &modelctx_protocol::jsonrpc::RequestId, reason: &str) {
    ctx.notify(Method::Cancelled, &json!({"requestId": id, "reason": reason})).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// However often a change happens while the listener is behind, it waits in the backlog
    /// once, in the order it first happened.
    #[test]
    fn a_backlog_keeps_each_change_once() {
        let honoured = SubscriptionFilter {
            tools_list_changed: Some(true),
            resource_subscriptions: Some(vec!["test://a".into()]),
            ..SubscriptionFilter::default()
        };
        let mut backlog = Backlog::default();
        for _ in 0..1000 {
            backlog.add(&honoured, ServerEvent::ToolsChanged);
            backlog.add(&honoured, ServerEvent::ResourceUpdated("test://a/1".into()));
            backlog.add(&honoured, ServerEvent::PromptsChanged);
            backlog.add(&honoured, ServerEvent::ResourceUpdated("test://b".into()));
        }
        assert_eq!(backlog.len(), 2, "prompts and test://b were not asked for");
        assert_eq!(backlog.pop(), Some((Method::ToolListChanged, None)));
        assert_eq!(backlog.pop(), Some((Method::ResourceUpdated, Some("test://a/1".into()))));
        assert!(backlog.is_empty());
    }
}
