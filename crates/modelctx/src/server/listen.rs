//! `subscriptions/listen` (2026-07-28): the long-lived request on which a modern client hears
//! of changes, opted into by filter (SUB-01..SUB-09).

use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::jsonrpc::MethodName as _;
use modelctx_protocol::v2026;
use modelctx_protocol::v2026::{
    ResultType, SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, SubscriptionsListenResultMetaObject,
};
use modelctx_protocol::{JsonObject, meta, tasks};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::context::RequestContext;
use super::dispatch::to_object;
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
    /// The part of `wanted` this server honours (SUB-03): only what its capabilities offer.
    fn honoured(&self, wanted: SubscriptionFilter) -> SubscriptionFilter {
        let capabilities = self.capabilities();
        let (tools, prompts, resources) =
            (capabilities.tools.is_some(), capabilities.prompts.is_some(), capabilities.resources.is_some());
        let yes = |flag: Option<bool>, offered: bool| (flag == Some(true) && offered).then_some(true);
        SubscriptionFilter {
            tools_list_changed: yes(wanted.tools_list_changed, tools),
            prompts_list_changed: yes(wanted.prompts_list_changed, prompts),
            resources_list_changed: yes(wanted.resources_list_changed, resources),
            resource_subscriptions: wanted.resource_subscriptions.filter(|_| resources),
            // This server runs no tasks, so it has no task notifications to offer.
            task_ids: None,
        }
    }

    /// Serves one subscription: the acknowledgement first (SUB-02), then each change the
    /// filter asked for, tagged with the subscription id (META-08), until the client cancels
    /// (no response then) or the connection closes (the graceful result, SUB-06).
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
        let honoured = self.honoured(wanted);
        let id = ctx.request_id().clone();
        let tag = json!({ meta::SUBSCRIPTION_ID: id });
        // Subscribe before acknowledging, so no change between the two is lost.
        let mut events = self.events();
        let ack = SubscriptionsAcknowledgedNotificationParams {
            notifications: honoured.clone(),
            meta: Some(serde_json::from_value(tag.clone()).expect("a notification _meta")),
        };
        ctx.notify(v2026::SubscriptionsAcknowledged::NAME, &ack).await;
        loop {
            let event = tokio::select! {
                () = ctx.closing().cancelled() => break,
                event = events.recv() => event,
            };
            let (method, uri) = match event {
                Ok(ServerEvent::ToolsChanged) if honoured.tools_list_changed.is_some() => {
                    ("notifications/tools/list_changed", None)
                }
                Ok(ServerEvent::PromptsChanged) if honoured.prompts_list_changed.is_some() => {
                    ("notifications/prompts/list_changed", None)
                }
                Ok(ServerEvent::ResourcesChanged) if honoured.resources_list_changed.is_some() => {
                    ("notifications/resources/list_changed", None)
                }
                Ok(ServerEvent::ResourceUpdated(uri))
                    if honoured.resource_subscriptions.iter().flatten().any(|s| covers(s, &uri)) =>
                {
                    (v2026::ResourceUpdated::NAME, Some(uri))
                }
                Ok(_) => continue,
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a subscription missed server events");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let params = match uri {
                Some(uri) => json!({"uri": uri, "_meta": tag}),
                None => json!({"_meta": tag}),
            };
            ctx.notify(method, &params).await;
        }
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
