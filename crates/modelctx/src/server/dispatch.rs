//! Serving one routed request: era-neutral operations on the registry, shaped into each
//! era's wire results at the edge.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use modelctx_protocol::apps::Visibility;
use modelctx_protocol::era::RequestMeta;
use modelctx_protocol::jsonrpc::{ErrorObject, PreparedResult, Request, RequestId};
use modelctx_protocol::model::{self, CallToolResult, ServerCapabilities};
use modelctx_protocol::types::{
    CompletionReference, ListChangedCapability, Prompt, PromptMessage, Resource, ResourceTemplate,
    ResourcesCapability, TextOrBlob,
};
use modelctx_protocol::{Era, JsonObject, Method, meta, v2025, v2026};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::answer::Answer;
use super::cache_hints::page_hints;
use super::completion::completion;
use super::context::{RequestContext, RequestFacts, Tokens};
use super::input::{InputChannel, LegacyPeer, Round, RoundEnd, RoundSlot, until_asked};
use super::pagination::page;
use super::params::{legacy_call_params, params_of, parse_params, to_object};
use super::request_state::state_digest;
use super::resource::{ResourceError, ResourceRequest};
use super::session::LegacySession;
use super::sink::NotificationSink;
use super::{CacheDefaults, CompletionRequest, Principal, Server};

/// What a server reads of 2026-07-28 `tools/call` params (`CallToolRequestParams`) on the hot
/// path: `_meta` was read into the request's context and `requestState` into its round, so
/// neither is deserialised a second time.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    /// Read only for its shape: a malformed answer is `-32602` before the tool runs; the
    /// round takes the answers from the params themselves.
    #[serde(default, rename = "inputResponses")]
    _input_responses: Option<v2026::InputResponses>,
}

/// Which page: the era, whether the client shows apps, and the cursor.
type PageKey = (Era, bool, Option<String>);

/// A listing page: its items (as JSON for `tools/list`), the cursor of the next, and its
/// cache hints.
type Page<T = Arc<RawValue>> = (T, Option<String>, CacheDefaults);

/// `tools/list` pages as JSON, by era and cursor.
#[derive(Default)]
pub(crate) struct ToolPages(std::sync::Mutex<HashMap<PageKey, Page>>);

impl ToolPages {
    /// At most this many pages are kept (cursors come from clients).
    const MAX: usize = 64;

    fn pages(&self) -> std::sync::MutexGuard<'_, HashMap<PageKey, Page>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, key: &PageKey) -> Option<Page> {
        self.pages().get(key).cloned()
    }

    /// Keeps `page`. When [`ToolPages::MAX`] pages are kept already, they are all forgotten
    /// first: cursors come from clients, and pages kept for cursors nobody asks again must
    /// not keep out the ones asked for now.
    fn put(&self, key: PageKey, page: Page) {
        let mut pages = self.pages();
        if pages.len() >= Self::MAX && !pages.contains_key(&key) {
            pages.clear();
        }
        pages.insert(key, page);
    }

    /// Forgets every page (the tools changed).
    pub(crate) fn clear(&self) {
        self.pages().clear();
    }
}

/// Whether the client declared a capability a handler's question needs (elicitation,
/// sampling, roots). Without one every question fails with `-32021`, so no round can end in
/// `input_required` and the params digest that seals `requestState` is not taken.
pub(crate) fn answerable(ctx: &RequestContext) -> bool {
    let capabilities = ctx.client_capabilities();
    capabilities.elicitation.is_some() || capabilities.sampling.is_some() || capabilities.roots.is_some()
}

/// Whether the handlers of `method` may ask the client (MRTR-02).
fn may_ask(method: &Method) -> bool {
    matches!(method, Method::CallTool | Method::GetPrompt | Method::ReadResource)
}

/// How a request that may ask the client ended: its result, or (modern) the questions.
pub(crate) enum Asked<T> {
    Done(T),
    InputRequired(Box<v2026::InputRequiredResult>),
}

/// Whether only a legacy session has `method`; a modern request for one gets `-32601` saying
/// so.
fn legacy_only(method: &Method) -> bool {
    matches!(
        method,
        Method::Initialize | Method::Ping | Method::SetLevel | Method::Subscribe | Method::Unsubscribe
    )
}

/// Who a legacy session's request comes from, as the transport knows: the session's id and
/// the principal an authenticator verified.
pub(crate) struct Caller<'a> {
    pub(crate) session_id: Option<&'a str>,
    pub(crate) principal: Option<Arc<Principal>>,
    /// How the caller reached the server, as OpenTelemetry's `network.transport` names it:
    /// `pipe` (stdio, in process), `tcp` (HTTP).
    pub(crate) network_transport: &'static str,
}

impl Server {
    /// What the server offers, derived from what is registered.
    pub fn capabilities(&self) -> ServerCapabilities {
        let registry = self.read_registry();
        let list_changed = || ListChangedCapability { list_changed: Some(true) };
        ServerCapabilities {
            tools: (!registry.tools.is_empty()).then(list_changed),
            prompts: (!registry.prompts.is_empty()).then(list_changed),
            resources: (!registry.resources.is_empty() || !registry.templates.is_empty())
                .then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            completions: registry.has_completions().then(JsonObject::new),
            logging: Some(JsonObject::new()),
            legacy_tasks: super::tasks::legacy_tasks_capability(registry.offers_tasks()),
            // The extensions declared, and those the registered definitions use (2026-07-28;
            // the legacy shape has none): the tasks extension once a tool runs as a task.
            extensions: {
                let mut extensions = self.inner.extensions.clone();
                if registry.offers_tasks() {
                    extensions.insert(modelctx_protocol::tasks::EXTENSION_ID.to_owned(), JsonObject::new());
                }
                #[cfg(feature = "skills")]
                if !self.inner.skills.is_empty() {
                    extensions
                        .insert(super::skills::EXTENSION_ID.to_owned(), super::skills::Skills::settings());
                }
                (!extensions.is_empty()).then_some(extensions)
            },
            ..ServerCapabilities::default()
        }
    }

    pub(crate) fn offers_resources(&self) -> bool {
        self.capabilities().resources.is_some()
    }

    /// The context of a modern request: its `_meta` says everything (the era router has
    /// checked the version and that capabilities are present).
    pub(crate) fn modern_context(
        &self,
        request: &Request,
        caller: Caller<'_>,
        tokens: Tokens,
        sink: NotificationSink,
    ) -> Result<RequestContext, ErrorObject> {
        // Read in place: the `_meta` tree is not copied to be read.
        let meta = request.params.as_ref().and_then(|p| p.get("_meta")).unwrap_or(&Value::Null);
        let meta =
            RequestMeta::from_json(meta).map_err(|e| ErrorObject::invalid_params(format!("_meta: {e}")))?;
        let input = if may_ask(&request.method) {
            InputChannel::Modern(self.open_round(request, caller.principal.as_deref())?)
        } else {
            InputChannel::None
        };
        Ok(self.context_of_meta(request.id.clone(), meta, input, caller, tokens, sink))
    }

    /// The context of modern request `id` whose `_meta` says `meta`.
    pub(crate) fn context_of_meta(
        &self,
        id: RequestId,
        meta: RequestMeta,
        input: InputChannel,
        caller: Caller<'_>,
        tokens: Tokens,
        sink: NotificationSink,
    ) -> RequestContext {
        let facts = RequestFacts {
            id,
            era: Era::Modern,
            version: meta.protocol_version,
            client: meta.client,
            progress_token: meta.progress_token,
            log_level: meta.log_level,
            session_id: None,
            principal: caller.principal,
            network_transport: caller.network_transport,
        };
        RequestContext::new(facts, input, tokens, sink, self.clone())
    }

    /// The answers a retried modern request brings: those sealed in `requestState` by earlier
    /// rounds, and this round's `inputResponses`.
    fn open_round(&self, request: &Request, principal: Option<&Principal>) -> Result<RoundSlot, ErrorObject> {
        let params = request.params.as_ref();
        let mut answers = match params.and_then(|p| p.get("requestState")) {
            None => JsonObject::new(),
            Some(Value::String(state)) => {
                self.state_keys().open(state, &request.method, &state_digest(params, principal))?
            }
            Some(_) => {
                return Err(ErrorObject::invalid_params("requestState must be the string the server sent"));
            }
        };
        match params.and_then(|p| p.get("inputResponses")) {
            None => {}
            Some(Value::Object(responses)) => answers.extend(responses.clone()),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "inputResponses must be an object keyed like inputRequests",
                ));
            }
        }
        let redeemed = params.and_then(|p| p.get("requestState")).and_then(Value::as_str).map(str::to_owned);
        // A request that brought nothing has its round opened only if its handler asks.
        Ok(if answers.is_empty() && redeemed.is_none() {
            RoundSlot::default()
        } else {
            RoundSlot::opened_with(Round::new(answers, redeemed))
        })
    }

    /// Runs `operation`; for a modern request, stops it when it asks the client something not
    /// yet answered and returns the questions with the sealed answers so far.
    pub(crate) async fn in_round<T>(
        &self,
        ctx: &RequestContext,
        method: &Method,
        digest: Option<String>,
        operation: impl std::future::Future<Output = Result<T, ErrorObject>>,
    ) -> Result<Asked<T>, ErrorObject> {
        let InputChannel::Modern(slot) = ctx.input() else {
            return operation.await.map(Asked::Done);
        };
        if let (Some(once), Some(state)) =
            (&self.inner.state_once, slot.opened().and_then(|r| r.redeemed.as_ref()))
        {
            let lifetime = self.state_keys().lifetime();
            let first = once.claim(state, lifetime).await.map_err(|e| {
                ErrorObject::internal(format!("requestState could not be checked for reuse: {e}"))
            })?;
            if !first {
                // MRTR-10: each sealed state is redeemed once.
                return Err(ErrorObject::invalid_params(
                    "requestState was used before (this server redeems each one once); start the request again without it",
                ));
            }
        }
        let end = until_asked(operation, slot).await;
        if let Some(failure) =
            slot.opened().and_then(|round| round.failure.lock().expect("round lock").take())
        {
            return Err(failure);
        }
        match end {
            RoundEnd::Done(result) => result.map(Asked::Done),
            RoundEnd::Asked => {
                // A question reaches the round only when the client can answer it, and the
                // digest is taken whenever it can.
                let digest =
                    digest.ok_or_else(|| ErrorObject::internal("a question without a params digest"))?;
                let round = slot.round();
                let asked = std::mem::take(&mut *round.asked.lock().expect("round lock"));
                Ok(Asked::InputRequired(Box::new(v2026::InputRequiredResult {
                    result_type: v2026::ResultType::InputRequired,
                    input_requests: Some(asked),
                    request_state: Some(self.state_keys().seal(method, digest, round.answers.clone())),
                    meta: Some(v2026::ResultMetaObject {
                        server_info: Some(self.info().clone()),
                        other: JsonObject::new(),
                    }),
                })))
            }
        }
    }

    /// The context of a request inside a legacy session from `caller`; `peer` sends live
    /// requests to the client when the method may ask.
    pub(crate) fn legacy_context(
        &self,
        request: &Request,
        session: &LegacySession,
        caller: Caller<'_>,
        peer: LegacyPeer,
        tokens: Tokens,
        sink: NotificationSink,
    ) -> RequestContext {
        let progress_token = request
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .and_then(|token| serde_json::from_value(token.clone()).ok());
        let facts = RequestFacts {
            id: request.id.clone(),
            era: Era::Legacy,
            version: session.version,
            client: Arc::clone(&session.client),
            progress_token,
            log_level: session.log_level,
            session_id: caller.session_id.map(str::to_owned),
            principal: caller.principal,
            network_transport: caller.network_transport,
        };
        // `tasks/result` asks the client the questions of the task it waits for.
        let asks = may_ask(&request.method) || request.method == Method::GetTaskPayload;
        let input = if asks { InputChannel::Legacy(peer) } else { InputChannel::None };
        RequestContext::new(facts, input, tokens, sink, self.clone())
    }

    /// Serves a request through the method table, in its era's shape (the innermost service
    /// of the layers). Large listings stay the JSON the server keeps of them.
    pub(crate) async fn answer(
        &self,
        ctx: RequestContext,
        method: Method,
        params: Option<JsonObject>,
    ) -> Result<Answer, ErrorObject> {
        // Boxed: the method table's future is the largest part of a request's, and every
        // future around it (layers, time limit, panic guard, the task) moves as it starts; a
        // box keeps what moves to a pointer.
        Box::pin(self.method_table(ctx, &method, params)).await
    }

    /// The one method table: for each method, its params read and its era-neutral operation
    /// run, the result shaped for the request's era (2026-07-28's `resultType`, cache hints
    /// and `serverInfo`; 2025-11-25's shapes), arm by arm per era. Its future is as large as
    /// its largest arm's, and every request's is copied whole: an arm whose work holds a large
    /// future (a round, a listen, the tasks' methods) awaits it boxed, so that the common
    /// calls do not carry them (3,296 bytes down to 840).
    async fn method_table(
        &self,
        ctx: RequestContext,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<Answer, ErrorObject> {
        let cache = self.options().cache;
        let (ttl_ms, cache_scope) = (Some(cache.ttl_ms), Some(cache.scope));
        let hinted = |hints: CacheDefaults| (Some(hints.ttl_ms), Some(hints.scope));
        // Every result carries `serverInfo` in `_meta`: JSON the server wrote once.
        let server_info = &self.inner.info_json;
        let complete = v2026::ResultType::Complete;
        Ok(match (method, ctx.era()) {
            (Method::Discover, Era::Modern) => Answer::modern(
                v2026::DiscoverResult {
                    result_type: complete,
                    supported_versions: self.versions().all().iter().map(ToString::to_string).collect(),
                    capabilities: self.capabilities().into(),
                    instructions: self.inner.instructions.clone(),
                    ttl_ms,
                    cache_scope,
                    meta: None,
                },
                server_info.clone(),
            ),
            (Method::ListTools, Era::Modern) => {
                let params = params_of::<v2026::ListTools>(params)?;
                let (tools, next_cursor, hints) = self.tool_page(params.cursor, &ctx)?;
                let (ttl_ms, cache_scope) = hinted(hints);
                let meta = v2026::ResultMetaObject {
                    server_info: Some(self.info().clone()),
                    other: JsonObject::new(),
                };
                let result = to_object(&v2026::ListToolsResult {
                    result_type: complete,
                    tools: Vec::new(),
                    next_cursor,
                    ttl_ms,
                    cache_scope,
                    meta: Some(meta),
                });
                return Ok(Answer::prepared(PreparedResult { result, key: "tools", value: tools }));
            }
            (Method::ListTools, Era::Legacy) => {
                let params = params_of::<v2025::ListTools>(params)?;
                let (tools, next_cursor, _) = self.tool_page(params.and_then(|p| p.cursor), &ctx)?;
                let result =
                    to_object(&v2025::ListToolsResult { tools: Vec::new(), next_cursor, meta: None });
                return Ok(Answer::prepared(PreparedResult { result, key: "tools", value: tools }));
            }
            (Method::CallTool, Era::Modern) => {
                let digest = answerable(&ctx).then(|| state_digest(params.as_ref(), ctx.principal()));
                let params: ToolCallParams = parse_params(params)?;
                return Box::pin(self.modern_tool_call(ctx, &params.name, params.arguments, digest)).await;
            }
            (Method::CallTool, Era::Legacy) => {
                let params = legacy_call_params(params)?;
                if let Some(created) = self.legacy_call_as_task(&ctx, &params).await? {
                    return Ok(Answer::from(created));
                }
                let result = self.call_tool(ctx, &params.name, params.arguments).await?;
                let result = v2025::CallToolResult::try_from(result).map_err(ErrorObject::internal)?;
                Answer::legacy_call(result)
            }
            (Method::ListResources, Era::Modern) => {
                let params = params_of::<v2026::ListResources>(params)?;
                let (resources, next_cursor, hints) = self.list_resources(params.cursor.as_deref())?;
                let (ttl_ms, cache_scope) = hinted(hints);
                Answer::modern(
                    v2026::ListResourcesResult {
                        result_type: complete,
                        resources,
                        next_cursor,
                        ttl_ms,
                        cache_scope,
                        meta: None,
                    },
                    server_info.clone(),
                )
            }
            (Method::ListResources, Era::Legacy) => {
                let params = params_of::<v2025::ListResources>(params)?;
                let (resources, next_cursor, _) =
                    self.list_resources(params.and_then(|p| p.cursor).as_deref())?;
                Answer::typed(v2025::ListResourcesResult { resources, next_cursor, meta: None })
            }
            (Method::ListResourceTemplates, Era::Modern) => {
                let params = params_of::<v2026::ListResourceTemplates>(params)?;
                let (resource_templates, next_cursor, hints) =
                    self.list_templates(params.cursor.as_deref())?;
                let (ttl_ms, cache_scope) = hinted(hints);
                Answer::modern(
                    v2026::ListResourceTemplatesResult {
                        result_type: complete,
                        resource_templates,
                        next_cursor,
                        ttl_ms,
                        cache_scope,
                        meta: None,
                    },
                    server_info.clone(),
                )
            }
            (Method::ListResourceTemplates, Era::Legacy) => {
                let params = params_of::<v2025::ListResourceTemplates>(params)?;
                let (resource_templates, next_cursor, _) =
                    self.list_templates(params.and_then(|p| p.cursor).as_deref())?;
                Answer::typed(v2025::ListResourceTemplatesResult {
                    resource_templates,
                    next_cursor,
                    meta: None,
                })
            }
            (Method::ReadResource, Era::Modern) => {
                let digest = answerable(&ctx).then(|| state_digest(params.as_ref(), ctx.principal()));
                let params = params_of::<v2026::ReadResource>(params)?;
                let read = self.read_resource(ctx.clone(), &params.uri);
                match Box::pin(self.in_round(&ctx, method, digest, read)).await? {
                    Asked::Done((contents, defined)) => {
                        let cache = ctx.cache(defined);
                        Answer::modern(
                            v2026::ReadResourceResult {
                                result_type: complete,
                                contents,
                                ttl_ms: Some(cache.ttl_ms),
                                cache_scope: Some(cache.scope),
                                meta: None,
                            },
                            server_info.clone(),
                        )
                    }
                    Asked::InputRequired(required) => Answer::typed(required),
                }
            }
            (Method::ReadResource, Era::Legacy) => {
                let params = params_of::<v2025::ReadResource>(params)?;
                let (contents, _) = self.read_resource(ctx, &params.uri).await?;
                Answer::typed(v2025::ReadResourceResult { contents, meta: None })
            }
            (Method::ListPrompts, Era::Modern) => {
                let params = params_of::<v2026::ListPrompts>(params)?;
                let (prompts, next_cursor, hints) = self.list_prompts(params.cursor.as_deref())?;
                let (ttl_ms, cache_scope) = hinted(hints);
                Answer::modern(
                    v2026::ListPromptsResult {
                        result_type: complete,
                        prompts,
                        next_cursor,
                        ttl_ms,
                        cache_scope,
                        meta: None,
                    },
                    server_info.clone(),
                )
            }
            (Method::ListPrompts, Era::Legacy) => {
                let params = params_of::<v2025::ListPrompts>(params)?;
                let (prompts, next_cursor, _) =
                    self.list_prompts(params.and_then(|p| p.cursor).as_deref())?;
                Answer::typed(v2025::ListPromptsResult { prompts, next_cursor, meta: None })
            }
            (Method::GetPrompt, Era::Modern) => {
                let digest = answerable(&ctx).then(|| state_digest(params.as_ref(), ctx.principal()));
                let params = params_of::<v2026::GetPrompt>(params)?;
                let get = self.get_prompt(ctx.clone(), &params.name, params.arguments);
                match Box::pin(self.in_round(&ctx, method, digest, get)).await? {
                    Asked::Done((description, messages)) => Answer::modern(
                        v2026::GetPromptResult { result_type: complete, description, messages, meta: None },
                        server_info.clone(),
                    ),
                    Asked::InputRequired(required) => Answer::typed(required),
                }
            }
            (Method::GetPrompt, Era::Legacy) => {
                let params = params_of::<v2025::GetPrompt>(params)?;
                let (description, messages) =
                    Box::pin(self.get_prompt(ctx, &params.name, params.arguments)).await?;
                Answer::typed(v2025::GetPromptResult { description, messages, meta: None })
            }
            (Method::Complete, Era::Modern) => {
                let v2026::CompleteRequestParams { reference, argument, context, .. } =
                    params_of::<v2026::Complete>(params)?;
                let completion = Box::pin(self.complete(ctx, reference, argument, context)).await?;
                Answer::modern(
                    v2026::CompleteResult { result_type: complete, completion, meta: None },
                    server_info.clone(),
                )
            }
            (Method::Complete, Era::Legacy) => {
                let v2025::CompleteRequestParams { reference, argument, context, .. } =
                    params_of::<v2025::Complete>(params)?;
                let completion = Box::pin(self.complete(ctx, reference, argument, context)).await?;
                Answer::typed(v2025::CompleteResult { completion, meta: None })
            }
            (Method::SubscriptionsListen, Era::Modern) => Answer::from(
                Box::pin(self.listen(&ctx, params_of::<v2026::SubscriptionsListen>(params)?)).await?,
            ),
            (task, Era::Modern) if super::tasks::is_task_method(task) => {
                Answer::from(Box::pin(self.task_method(&ctx, method, params)).await?)
            }
            (task, Era::Legacy) if super::tasks::is_legacy_task_method(task) => {
                Answer::from(Box::pin(self.legacy_task_method(&ctx, method, params)).await?)
            }
            #[cfg(feature = "skills")]
            (skill, era) if super::skills::is_skill_method(skill) => {
                let mut result = self.inner.skills.serve(skill, params, self.options().page_size)?;
                if era == Era::Modern {
                    result.insert("resultType".into(), serde_json::json!(complete));
                    result.insert("ttlMs".into(), serde_json::json!(ttl_ms));
                    result.insert("cacheScope".into(), serde_json::json!(cache_scope));
                }
                Answer::from(result)
            }
            (legacy, Era::Modern) if legacy_only(legacy) => {
                return Err(ErrorObject::method_not_found(&format!(
                    "{legacy} (a 2025-11-25 session method; 2026-07-28 requests carry their state in _meta)"
                )));
            }
            (other, _) => return Err(ErrorObject::method_not_found(other.as_str())),
        })
    }

    fn require(&self, offered: bool, method: Method) -> Result<(), ErrorObject> {
        if offered { Ok(()) } else { Err(ErrorObject::method_not_found(method.as_str())) }
    }

    /// A page of tools as the caller's era and capabilities see them, as JSON: serialised from
    /// the JSON each tool keeps of itself the first time it is asked for, then reused until
    /// the tools change. A client that shows no apps does not see the tools only an app may
    /// call (APPS-02).
    fn tool_page(&self, cursor: Option<String>, ctx: &RequestContext) -> Result<Page, ErrorObject> {
        let era = ctx.era();
        let shows_apps = modelctx_protocol::apps::client_renders_apps(ctx.client_capabilities());
        let key = (era, shows_apps, cursor);
        if let Some(page) = self.inner.tool_pages.get(&key) {
            return Ok(page);
        }
        let registry = self.read_registry();
        self.require(!registry.tools.is_empty(), Method::ListTools)?;
        let tools: Vec<&super::tool::RegisteredTool> = registry
            .tools
            .values()
            .map(|t| &**t)
            .filter(|t| shows_apps || t.ui.as_ref().is_none_or(|ui| ui.visible_to(Visibility::Model)))
            .collect();
        let (listed, next) =
            page(&tools, |t| t.tool.name.as_str(), key.2.as_deref(), self.options().page_size)?;
        let hints =
            page_hints(self.options().cache, tools.iter().map(|t| t.cache), listed.iter().map(|t| t.cache));
        let items: Vec<&Value> = listed.into_iter().map(|t| t.wire(era)).collect();
        let json = serde_json::to_string(&items).map_err(|e| ErrorObject::internal(e.to_string()))?;
        let json: Arc<RawValue> =
            Arc::from(RawValue::from_string(json).map_err(|e| ErrorObject::internal(e.to_string()))?);
        // Stored while the registry is read-locked, so a change cannot slip in between.
        self.inner.tool_pages.put(key, (json.clone(), next.clone(), hints));
        Ok((json, next, hints))
    }

    /// Answers a 2026-07-28 `tools/call` of tool `name` with `arguments`: as a task when the
    /// tool runs as one, else its result, or the questions it asks (`digest` seals the
    /// answers so far, when the client can answer).
    pub(crate) async fn modern_tool_call(
        &self,
        ctx: RequestContext,
        name: &str,
        arguments: Option<JsonObject>,
        digest: Option<String>,
    ) -> Result<Answer, ErrorObject> {
        if let Some(answer) = self.call_as_task(&ctx, digest.clone(), name, arguments.as_ref()).await? {
            return Ok(Answer::from(answer));
        }
        let call = self.call_tool(ctx.clone(), name, arguments);
        Ok(match self.in_round(&ctx, &Method::CallTool, digest, call).await? {
            Asked::Done(result) if result.meta.is_none() => {
                Answer::modern_call(result.into_modern(None), self.inner.info_json.clone())
            }
            Asked::Done(result) => Answer::typed(result.into_modern(Some(self.info().clone()))),
            Asked::InputRequired(required) => Answer::typed(required),
        })
    }

    pub(crate) async fn call_tool(
        &self,
        ctx: RequestContext,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, ErrorObject> {
        let tool = self.read_registry().tools.get(name).cloned();
        let Some(tool) = tool else {
            return Err(ErrorObject::invalid_params(format!("unknown tool {name:?}")));
        };
        tool.call(ctx, arguments).await
    }

    fn list_resources(&self, cursor: Option<&str>) -> Result<Page<Vec<Resource>>, ErrorObject> {
        self.require(self.offers_resources(), Method::ListResources)?;
        let resources: Vec<(Resource, Option<CacheDefaults>)> =
            self.read_registry().resources.values().map(|r| (r.resource.clone(), r.cache)).collect();
        self.hinted_page(resources, |r| r.uri.as_str(), cursor)
    }

    fn list_templates(&self, cursor: Option<&str>) -> Result<Page<Vec<ResourceTemplate>>, ErrorObject> {
        self.require(self.offers_resources(), Method::ListResourceTemplates)?;
        let templates: Vec<(ResourceTemplate, Option<CacheDefaults>)> =
            self.read_registry().templates.values().map(|t| (t.def.template.clone(), t.def.cache)).collect();
        self.hinted_page(templates, |t| t.uri_template.as_str(), cursor)
    }

    /// The page at `cursor` of `listed` (each definition with its own cache hints, if any),
    /// with the page's merged hints.
    fn hinted_page<T: Clone>(
        &self,
        listed: Vec<(T, Option<CacheDefaults>)>,
        key: impl Fn(&T) -> &str,
        cursor: Option<&str>,
    ) -> Result<Page<Vec<T>>, ErrorObject> {
        let (shown, next) = page(&listed, |(item, _)| key(item), cursor, self.options().page_size)?;
        let hints = page_hints(
            self.options().cache,
            listed.iter().map(|(_, hints)| *hints),
            shown.iter().map(|(_, hints)| *hints),
        );
        Ok((shown.into_iter().map(|(item, _)| item).collect(), next, hints))
    }

    /// Reads a fixed resource, or the first template (in URI-template order) that matches;
    /// its contents, and the definition's own cache hints.
    async fn read_resource(
        &self,
        ctx: RequestContext,
        uri: &str,
    ) -> Result<(Vec<TextOrBlob>, Option<CacheDefaults>), ErrorObject> {
        self.require(self.offers_resources(), Method::ReadResource)?;
        let era = ctx.era();
        let found = {
            let registry = self.read_registry();
            registry.find_resource(uri).map(|found| (found.read.clone(), found.variables, found.cache))
        };
        let Some((read, variables, cache)) = found else {
            return Err(model::resource_not_found(era, uri));
        };
        match read(ResourceRequest { ctx, uri: uri.to_owned(), variables }).await {
            Ok(contents) if !contents.is_empty() => Ok((contents, cache)),
            // RES-05: never an empty `contents` for a resource that is not there.
            Ok(_) | Err(ResourceError::NotFound) => Err(model::resource_not_found(era, uri)),
            Err(ResourceError::Failed(message)) => Err(ErrorObject::internal(message)),
        }
    }

    fn list_prompts(&self, cursor: Option<&str>) -> Result<Page<Vec<Prompt>>, ErrorObject> {
        let prompts: Vec<(Prompt, Option<CacheDefaults>)> =
            self.read_registry().prompts.values().map(|p| (p.prompt.clone(), p.cache)).collect();
        self.require(!prompts.is_empty(), Method::ListPrompts)?;
        self.hinted_page(prompts, |p| p.name.as_str(), cursor)
    }

    async fn get_prompt(
        &self,
        ctx: RequestContext,
        name: &str,
        arguments: Option<BTreeMap<String, String>>,
    ) -> Result<(Option<String>, Vec<PromptMessage>), ErrorObject> {
        let prompt = self.read_registry().prompts.get(name).cloned();
        let Some(prompt) = prompt else {
            let offered = !self.read_registry().prompts.is_empty();
            self.require(offered, Method::GetPrompt)?;
            return Err(ErrorObject::invalid_params(format!("unknown prompt {name:?}")));
        };
        let messages = prompt.get(ctx, arguments.unwrap_or_default()).await?;
        Ok((prompt.prompt.description.clone(), messages))
    }

    async fn complete(
        &self,
        ctx: RequestContext,
        reference: CompletionReference,
        argument: modelctx_protocol::types::CompletionArgument,
        context: Option<modelctx_protocol::types::CompletionContext>,
    ) -> Result<modelctx_protocol::types::Completion, ErrorObject> {
        let completer = {
            let registry = self.read_registry();
            self.require(registry.has_completions(), Method::Complete)?;
            let completers = match &reference {
                CompletionReference::Prompt(p) => registry.prompts.get(&p.name).map(|p| &p.completers),
                CompletionReference::ResourceTemplate(t) => {
                    registry.templates.get(&t.uri).map(|t: &Arc<_>| &t.def.completers)
                }
            };
            let Some(completers) = completers else {
                return Err(ErrorObject::invalid_params(
                    "completion/complete names an unknown prompt or template",
                ));
            };
            completers.get(&argument.name).cloned()
        };
        let values = match completer {
            Some(completer) => {
                let context = context.and_then(|c| c.arguments).unwrap_or_default();
                completer(CompletionRequest { ctx, argument: argument.name, value: argument.value, context })
                    .await?
            }
            None => Vec::new(),
        };
        Ok(completion(values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Page {
        (Arc::from(RawValue::from_string(format!("{text:?}")).unwrap()), None, CacheDefaults::default())
    }

    /// Client-chosen cursors cannot fill the page cache for good (it used to stop keeping
    /// pages once 64 were kept).
    #[test]
    fn a_full_page_cache_makes_room_for_the_page_asked_now() {
        let pages = ToolPages::default();
        for i in 0..ToolPages::MAX {
            pages.put((Era::Modern, false, Some(format!("cursor-{i}"))), page("old"));
        }
        let first = (Era::Modern, false, None);
        pages.put(first.clone(), page("first"));
        assert_eq!(pages.get(&first).map(|(json, _, _)| json.get().to_owned()), Some("\"first\"".to_owned()));
        assert!(pages.pages().len() <= ToolPages::MAX);
    }
}
