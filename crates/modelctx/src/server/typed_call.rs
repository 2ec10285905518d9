//! The common `tools/call` read typed ([`read_typed`]): a 2026-07-28 call served without a
//! JSON tree of its params, envelope or `_meta` when no layer of the server would read them,
//! to the same method table as every other call; a 2025-11-25 call with no `_meta` read by
//! its layout into the request the strict reader would make of it.

use std::sync::atomic::Ordering;

use modelctx_protocol::era::RequestMeta;
use modelctx_protocol::jsonrpc::{ErrorObject, ParseLimits, RequestId, TypedRead, read_typed};
use modelctx_protocol::{Era, JsonObject};
use serde_json::Value;

use super::Server;
use super::answer::Answer;
use super::context::{RequestContext, Tokens};
use super::dispatch::{Caller, answerable};
use super::input::{InputChannel, RoundSlot};
use super::request_state::state_digest;
use super::sink::NotificationSink;

impl Server {
    /// `bytes` read as a `tools/call` of the common shape: a 2026-07-28 call when this server
    /// serves one so — its lifecycle's layers on and no other layer (its own or a
    /// definition's), whose params would be JSON — and serves its version, or a call with no
    /// `_meta`; `None` when it is to be read strictly.
    pub(crate) fn read_typed(&self, bytes: &[u8], limits: &ParseLimits) -> Option<TypedRead> {
        let inner = &self.inner;
        let typed = inner.lifecycle_layers
            && !inner.layers.is_some()
            && !inner.layered_targets.load(Ordering::Relaxed);
        match read_typed(bytes, limits, typed.then_some(&inner.meta_memo))? {
            TypedRead::Call(call) => {
                let version = call.meta.protocol_version;
                (version.era() == Era::Modern && self.versions().supports(version))
                    .then_some(TypedRead::Call(call))
            }
            plain @ TypedRead::Plain(_) => Some(plain),
        }
    }

    /// The context of typed call `id` whose `_meta` says `meta`: its round starts with no
    /// answers (a call that brings some, in `requestState` or `inputResponses`, is not of the
    /// common shape).
    pub(crate) fn typed_call_context(
        &self,
        id: RequestId,
        meta: RequestMeta,
        caller: Caller<'_>,
        tokens: Tokens,
        sink: NotificationSink,
    ) -> RequestContext {
        self.context_of_meta(id, meta, InputChannel::Modern(RoundSlot::default()), caller, tokens, sink)
    }

    /// Answers a typed call as the method table answers a `tools/call` with these params.
    pub(crate) async fn typed_tool_call(
        &self,
        ctx: RequestContext,
        name: String,
        arguments: Option<JsonObject>,
    ) -> Result<Answer, ErrorObject> {
        let digest = answerable(&ctx).then(|| {
            // The params a JSON call's digest is taken over: `_meta` is left out of it.
            let mut params = JsonObject::new();
            params.insert("name".to_owned(), Value::String(name.clone()));
            if let Some(arguments) = &arguments {
                params.insert("arguments".to_owned(), Value::Object(arguments.clone()));
            }
            state_digest(Some(&params), ctx.principal())
        });
        // Boxed as the method table is (`Server::answer`).
        Box::pin(self.modern_tool_call(ctx, &name, arguments, digest)).await
    }
}
