//! Asking the client from inside a handler — elicitation, sampling, roots — with one API for
//! both eras: [`RequestContext::elicit`], [`RequestContext::sample`],
//! [`RequestContext::list_roots`], and [`Question`] for a key of the handler's choosing. Each
//! question checks the client's capability, then travels by the request's
//! [`InputChannel`] (a modern round, a live request of the legacy session) or waits in its
//! task.

use std::sync::atomic::Ordering;

use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::{ErrorObject, MethodCall};
use modelctx_protocol::model::{self, ClientCapabilities, ElicitRequest};
use modelctx_protocol::types::Root;
use modelctx_protocol::v2025;
use modelctx_protocol::v2026::{
    CreateMessageRequestParams, CreateMessageResult, ElicitResult, InputRequest, ListRootsResult,
};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::context::RequestContext;
use super::input::{InputChannel, InputError};
use super::tasks::Running;

/// The client capability a question needs, as the `requiredCapabilities` of `-32021`.
fn check(capabilities: &ClientCapabilities, needed: Need) -> Result<(), InputError> {
    let (ok, required) = match needed {
        Need::ElicitForm => (
            capabilities.elicitation.as_ref().is_some_and(|e| e.supports_form()),
            json!({"elicitation": {"form": {}}}),
        ),
        Need::ElicitUrl => (
            capabilities.elicitation.as_ref().is_some_and(|e| e.supports_url()),
            json!({"elicitation": {"url": {}}}),
        ),
        Need::Sampling => (capabilities.sampling.is_some(), json!({"sampling": {}})),
        Need::SamplingTools => (
            capabilities.sampling.as_ref().is_some_and(|s| s.tools.is_some()),
            json!({"sampling": {"tools": {}}}),
        ),
        Need::Roots => (capabilities.roots.is_some(), json!({"roots": {}})),
    };
    if ok { Ok(()) } else { Err(InputError::MissingCapability(required)) }
}

#[derive(Clone, Copy)]
enum Need {
    ElicitForm,
    ElicitUrl,
    Sampling,
    SamplingTools,
    Roots,
}

/// A question to the client under a key the handler chooses (the `inputRequests` key of a
/// modern round), from [`RequestContext::question`].
pub struct Question<'c> {
    ctx: &'c RequestContext,
    key: Option<&'c str>,
}

impl RequestContext {
    /// Asks under `key` instead of the automatic `elicit-0`, `sample-0`, … keys, for servers
    /// whose clients expect particular keys. Keys must be unique within the request.
    pub fn question<'c>(&'c self, key: &'c str) -> Question<'c> {
        Question { ctx: self, key: Some(key) }
    }

    fn auto(&self) -> Question<'_> {
        Question { ctx: self, key: None }
    }

    /// Asks the user, through the client: a form (with the fields of `requestedSchema`) or a
    /// URL to visit. The answer says whether they accepted, declined or cancelled.
    pub async fn elicit(&self, request: ElicitRequest) -> Result<ElicitResult, InputError> {
        self.auto().elicit(request).await
    }

    /// Asks the client's model for a completion (sampling; with tools when the client
    /// declared `sampling.tools`).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, InputError> {
        self.auto().sample(params).await
    }

    /// Asks the client for its roots (the directories it lets the server work in).
    pub async fn list_roots(&self) -> Result<Vec<Root>, InputError> {
        self.auto().list_roots().await
    }
}

/// Asks inside a task: the question waits among the task's `inputRequests` for a
/// `tasks/update` (TX-08).
async fn ask_in_task<T: DeserializeOwned>(
    ctx: &RequestContext,
    task: &Running,
    kind: &'static str,
    key: Option<&str>,
    request: InputRequest,
) -> Result<T, InputError> {
    let request = serde_json::to_value(request).map_err(|e| InputError::Malformed(e.to_string()))?;
    let server = &ctx.server().inner;
    let answer = server.tasks.ask(task, kind, key, request, &server.announcer).await?;
    T::deserialize(answer).map_err(|e| InputError::Malformed(e.to_string()))
}

impl Question<'_> {
    fn capability(&self, needed: Need) -> Result<(), InputError> {
        let outcome = check(self.ctx.client_capabilities(), needed);
        if let (Err(InputError::MissingCapability(required)), InputChannel::Modern(slot)) =
            (&outcome, self.ctx.input())
        {
            slot.round().fail(ErrorObject::missing_client_capability(required.clone()));
        }
        outcome
    }

    /// [`RequestContext::elicit`] under this question's key.
    pub async fn elicit(self, request: ElicitRequest) -> Result<ElicitResult, InputError> {
        let need = match &request {
            ElicitRequest::Form { .. } => Need::ElicitForm,
            ElicitRequest::Url { .. } => Need::ElicitUrl,
        };
        if let Some(task) = self.ctx.task() {
            self.capability(need)?;
            return ask_in_task(
                self.ctx,
                &task,
                "elicit",
                self.key,
                InputRequest::Elicit(MethodCall::new(request.into())),
            )
            .await;
        }
        match self.ctx.input() {
            InputChannel::None => Err(InputError::NotAllowed),
            InputChannel::Modern(slot) => {
                self.capability(need)?;
                slot.round()
                    .ask("elicit", self.key, InputRequest::Elicit(MethodCall::new(request.into())))
                    .await
            }
            InputChannel::Legacy(peer) => {
                self.capability(need)?;
                let request = match request {
                    ElicitRequest::Url { message, url, elicitation_id: None } => {
                        let id = format!("elicitation-{}", peer.next_id.fetch_add(1, Ordering::Relaxed));
                        ElicitRequest::Url { message, url, elicitation_id: Some(id) }
                    }
                    other => other,
                };
                let params = v2025::ElicitRequestParams::try_from(request)
                    .map_err(|e| InputError::Malformed(e.to_string()))?;
                let params =
                    serde_json::to_value(params).map_err(|e| InputError::Malformed(e.to_string()))?;
                peer.request(Method::Elicit, params).await
            }
        }
    }

    /// [`RequestContext::sample`] under this question's key.
    pub async fn sample(self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, InputError> {
        modelctx_protocol::types::check_conversation(&params.messages).map_err(InputError::Invalid)?;
        let need = if params.tools.is_some() || params.tool_choice.is_some() {
            Need::SamplingTools
        } else {
            Need::Sampling
        };
        if let Some(task) = self.ctx.task() {
            self.capability(need)?;
            return ask_in_task(
                self.ctx,
                &task,
                "sample",
                self.key,
                InputRequest::CreateMessage(MethodCall::new(params)),
            )
            .await;
        }
        match self.ctx.input() {
            InputChannel::None => Err(InputError::NotAllowed),
            InputChannel::Modern(slot) => {
                self.capability(need)?;
                slot.round()
                    .ask("sample", self.key, InputRequest::CreateMessage(MethodCall::new(params)))
                    .await
            }
            InputChannel::Legacy(peer) => {
                self.capability(need)?;
                let params = serde_json::to_value(model::legacy_create_message(params))
                    .map_err(|e| InputError::Malformed(e.to_string()))?;
                peer.request(Method::CreateMessage, params).await
            }
        }
    }

    /// [`RequestContext::list_roots`] under this question's key.
    pub async fn list_roots(self) -> Result<Vec<Root>, InputError> {
        if let Some(task) = self.ctx.task() {
            self.capability(Need::Roots)?;
            let result: ListRootsResult = ask_in_task(
                self.ctx,
                &task,
                "roots",
                self.key,
                InputRequest::ListRoots(MethodCall::new(None)),
            )
            .await?;
            return Ok(result.roots);
        }
        let result: ListRootsResult = match self.ctx.input() {
            InputChannel::None => return Err(InputError::NotAllowed),
            InputChannel::Modern(slot) => {
                self.capability(Need::Roots)?;
                slot.round().ask("roots", self.key, InputRequest::ListRoots(MethodCall::new(None))).await?
            }
            InputChannel::Legacy(peer) => {
                self.capability(Need::Roots)?;
                peer.request(Method::ListRoots, json!({})).await?
            }
        };
        Ok(result.roots)
    }
}
