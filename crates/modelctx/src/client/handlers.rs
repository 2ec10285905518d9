//! How the client answers what a server asks of it — elicitation, sampling, roots — in both
//! eras: live server-to-client requests (2025-11-25) and the input requests of a
//! multi-round-trip result (2026-07-28). The capabilities the client declares follow from
//! which handlers are set.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::{ClientCapabilities, ElicitRequest};
use modelctx_protocol::types::{ElicitationCapability, ListChangedCapability, Root, SamplingCapability};
use modelctx_protocol::{Era, JsonObject, v2025, v2026};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

type Elicit = Arc<dyn Fn(ElicitRequest) -> BoxFuture<'static, v2026::ElicitResult> + Send + Sync>;
type Sample = Arc<
    dyn Fn(
            v2026::CreateMessageRequestParams,
        ) -> BoxFuture<'static, Result<v2026::CreateMessageResult, ErrorObject>>
        + Send
        + Sync,
>;
type Roots = Arc<dyn Fn() -> BoxFuture<'static, Vec<Root>> + Send + Sync>;
type Completed = Arc<dyn Fn(String) + Send + Sync>;

/// URL-mode elicitations a completion notification may still end, at most this many (the
/// oldest are forgotten first).
const MAX_OPEN_URL_ELICITATIONS: usize = 256;

tokio::task_local! {
    /// The `inputRequests` key of the question being answered.
    static INPUT_KEY: String;
}

/// The `inputRequests` key of the question a handler is answering, while it answers one of a
/// 2026-07-28 `input_required` result: for a gateway that asks its own client in turn, under
/// the same key. `None` for a live request (2025-11-25) and outside handlers.
pub fn input_key() -> Option<String> {
    INPUT_KEY.try_with(String::clone).ok()
}

tokio::task_local! {
    /// The task the live request being answered belongs to.
    static RELATED_TASK: String;
}

/// The task of the live request a handler is answering, when its `_meta` names one
/// (`io.modelcontextprotocol/related-task`: a 2025-11-25 task's question, asked on the stream of
/// `tasks/result`): for a gateway that asks its own client in turn, through the call that
/// started that task. `None` otherwise.
pub fn related_task() -> Option<String> {
    RELATED_TASK.try_with(String::clone).ok()
}

/// The client's answers to server requests; each one set declares its capability.
#[derive(Clone, Default)]
pub struct ClientHandlers {
    elicit: Option<Elicit>,
    /// Only form-mode elicitation is declared (URL mode is then refused, ELIC-15).
    form_only: bool,
    sample: Option<Sample>,
    /// `sampling.tools` is declared: sampling requests may carry `tools` (SAMP-02).
    sampling_tools: bool,
    roots: Option<Roots>,
    /// `roots.listChanged` is declared (2025-11-25): the host tells of changes with
    /// [`Client::roots_changed`](super::Client::roots_changed).
    roots_list_changed: bool,
    /// Told when a URL-mode elicitation the user accepted is complete.
    completed: Option<Completed>,
    /// The ids of accepted URL-mode elicitations not yet complete, oldest first.
    open_urls: Arc<std::sync::Mutex<std::collections::VecDeque<String>>>,
    /// The 2026-07-28 extensions declared in `capabilities.extensions`, with their settings.
    extensions: std::collections::BTreeMap<String, JsonObject>,
}

impl fmt::Debug for ClientHandlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientHandlers")
            .field("elicit", &self.elicit.is_some())
            .field("completed", &self.completed.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl ClientHandlers {
    /// Answers `elicitation/create` (form and URL mode) — usually by asking the user.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = v2026::ElicitResult> + Send + 'static,
    {
        self.elicit = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// Declares form-mode elicitation only: an `elicitation/create` in URL mode is then
    /// refused with `-32602` (ELIC-15), for a host that cannot open URLs.
    pub fn only_form_elicitation(mut self) -> Self {
        self.form_only = true;
        self
    }

    /// Declares `sampling.tools`: the sampling handler takes requests with `tools` and
    /// `toolChoice`. Without it such a request is refused with `-32602` (SAMP-02).
    pub fn sampling_tools(mut self) -> Self {
        self.sampling_tools = true;
        self
    }

    /// Declares the 2026-07-28 extension `id` with `settings` in `capabilities.extensions`
    /// (MCP Apps' `io.modelcontextprotocol/ui`, say); a 2025-11-25 session has no such field.
    pub fn extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// Declares `roots.listChanged` (2025-11-25): the host calls
    /// [`Client::roots_changed`](super::Client::roots_changed) when its roots change.
    pub fn roots_list_changed(mut self) -> Self {
        self.roots_list_changed = true;
        self
    }

    /// Whether `roots.listChanged` was declared.
    pub(crate) fn tells_root_changes(&self) -> bool {
        self.roots.is_some() && self.roots_list_changed
    }

    /// Told, with its `elicitationId`, when a URL-mode elicitation the user accepted is
    /// complete (`notifications/elicitation/complete`, 2025-11-25). A completion for an id
    /// this client never accepted, or that completed already, is ignored (ELIC-17).
    pub fn on_elicitation_complete<F>(mut self, handler: F) -> Self
    where
        F: Fn(String) + Send + Sync + 'static,
    {
        self.completed = Some(Arc::new(handler));
        self
    }

    /// Takes a server notification before it is broadcast: a completion of an open URL
    /// elicitation reaches [`ClientHandlers::on_elicitation_complete`]'s handler, once.
    pub(crate) fn notified(&self, method: &Method, params: Option<&JsonObject>) {
        if *method != Method::ElicitationComplete {
            return;
        }
        let Some(id) = params.and_then(|p| p.get("elicitationId")).and_then(Value::as_str) else { return };
        let mut open = self.open_urls.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(at) = open.iter().position(|known| known == id) else {
            return tracing::debug!(id, "a completion of no open URL elicitation; ignored");
        };
        open.remove(at);
        drop(open);
        if let Some(completed) = &self.completed {
            completed(id.to_owned());
        }
    }

    fn opened(&self, request: &ElicitRequest, answer: &v2026::ElicitResult) {
        if let (ElicitRequest::Url { elicitation_id: Some(id), .. }, v2026::ElicitResult { action, .. }) =
            (request, answer)
            && *action == modelctx_protocol::types::ElicitAction::Accept
        {
            let mut open = self.open_urls.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if open.len() >= MAX_OPEN_URL_ELICITATIONS {
                open.pop_front();
            }
            open.push_back(id.clone());
        }
    }

    /// Answers `sampling/createMessage` with the host's model.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(v2026::CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<v2026::CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.sample = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// Answers `roots/list`.
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.roots = Some(Arc::new(move || Box::pin(handler())));
        self
    }

    /// The client capabilities these handlers make true, in either era (each era's form
    /// keeps what it has: `roots.listChanged` is 2025-11-25's, extensions 2026-07-28's).
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            elicitation: self.elicit.as_ref().map(|_| ElicitationCapability {
                form: Some(JsonObject::new()),
                url: (!self.form_only).then(JsonObject::new),
            }),
            sampling: self.sample.as_ref().map(|_| SamplingCapability {
                context: None,
                tools: self.sampling_tools.then(JsonObject::new),
            }),
            roots: self
                .roots
                .as_ref()
                .map(|_| ListChangedCapability { list_changed: self.roots_list_changed.then_some(true) }),
            extensions: (!self.extensions.is_empty()).then(|| self.extensions.clone()),
            ..ClientCapabilities::default()
        }
    }

    /// Answers the input request under `key` of an `input_required` result ([`input_key`]
    /// tells the handler the key).
    pub(crate) async fn answer_input(
        &self,
        key: String,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<JsonObject, ErrorObject> {
        INPUT_KEY.scope(key, self.answer(Era::Modern, method, params)).await
    }

    /// Answers one server request of `era`; `ping` always, the rest when a handler is set
    /// ([`related_task`] tells the handler the task the request names).
    pub(crate) async fn answer(
        &self,
        era: Era,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<JsonObject, ErrorObject> {
        let related = params.as_ref().and_then(modelctx_protocol::meta::related_task).map(str::to_owned);
        match related {
            Some(task) => RELATED_TASK.scope(task, self.answer_now(era, method, params)).await,
            None => self.answer_now(era, method, params).await,
        }
    }

    async fn answer_now(
        &self,
        era: Era,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<JsonObject, ErrorObject> {
        let params = Value::Object(params.unwrap_or_default());
        match method {
            Method::Ping => Ok(JsonObject::new()),
            Method::Elicit if self.elicit.is_some() => {
                let request: ElicitRequest = match era {
                    Era::Modern => typed::<v2026::ElicitRequestParams>(params)?.into(),
                    Era::Legacy => typed::<v2025::ElicitRequestParams>(params)?.into(),
                };
                if self.form_only && matches!(request, ElicitRequest::Url { .. }) {
                    return Err(ErrorObject::invalid_params(
                        "this client declared form-mode elicitation only; it does not open URLs",
                    ));
                }
                let elicit = self.elicit.as_ref().map(Arc::clone).ok_or_else(|| missing(method))?;
                let answer = elicit(request.clone()).await;
                self.opened(&request, &answer);
                object(&answer)
            }
            Method::CreateMessage if self.sample.is_some() => {
                let request = typed::<v2026::CreateMessageRequestParams>(params)?;
                if !self.sampling_tools && (request.tools.is_some() || request.tool_choice.is_some()) {
                    return Err(ErrorObject::invalid_params(
                        "this request carries tools, but this client did not declare sampling.tools",
                    ));
                }
                // SAMP-04, SAMP-05: tool results alone in their message, every tool use answered.
                modelctx_protocol::types::check_conversation(&request.messages).map_err(|why| {
                    ErrorObject::invalid_params(format!("the sampling conversation: {why}"))
                })?;
                let sample = self.sample.as_ref().map(Arc::clone).ok_or_else(|| missing(method))?;
                object(&sample(request).await?)
            }
            Method::ListRoots if self.roots.is_some() => {
                let roots = self.roots.as_ref().map(Arc::clone).ok_or_else(|| missing(method))?;
                let roots = roots().await;
                // ROOTS-02: a root is a directory of this machine, named by a file:// URI;
                // ROOTS-04: one that climbs out of itself (`..`) is never offered.
                if let Some((bad, why)) =
                    roots.iter().find_map(|root| root_problem(&root.uri).map(|why| (root, why)))
                {
                    return Err(ErrorObject::internal(format!("the host's root {:?} {why}", bad.uri)));
                }
                object(&v2026::ListRootsResult { roots })
            }
            other => Err(missing(other)),
        }
    }
}

/// Why `uri` cannot be offered as a root: not a `file://` URI, or a path with `.` or `..`
/// segments (plain or percent-encoded) that could reach outside the directory it names.
fn root_problem(uri: &str) -> Option<&'static str> {
    let Some(path) = uri.strip_prefix("file://") else {
        return Some("is not a file:// URI; a client offers file:// roots only");
    };
    let decoded = path.replace("%2e", ".").replace("%2E", ".").replace("%2f", "/").replace("%2F", "/");
    if decoded.split(['/', '\\']).any(|segment| segment == ".." || segment == ".") {
        return Some("has . or .. segments; a root names its directory plainly");
    }
    None
}

fn missing(method: &Method) -> ErrorObject {
    ErrorObject::method_not_found(method.as_str())
}

fn typed<T: DeserializeOwned>(params: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(params).map_err(|e| ErrorObject::invalid_params(e.to_string()))
}

fn object(value: &impl Serialize) -> Result<JsonObject, ErrorObject> {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(ErrorObject::internal(format!("a handler answered {other}, not an object"))),
        Err(e) => Err(ErrorObject::internal(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The capabilities `handlers` declare, as `era` writes them.
    fn declared(handlers: &ClientHandlers, era: Era) -> Value {
        let capabilities = handlers.capabilities();
        match era {
            Era::Legacy => json!(v2025::ClientCapabilities::from(capabilities)),
            Era::Modern => json!(v2026::ClientCapabilities::from(capabilities)),
        }
    }

    fn answered(era: Era) -> v2026::ElicitResult {
        let _ = era;
        serde_json::from_value(json!({"action": "decline"})).unwrap()
    }

    #[tokio::test]
    async fn elic_15_samp_02_undeclared_modes_and_tools_are_refused_with_invalid_params() {
        let handlers = ClientHandlers::default()
            .on_elicit(|_| async { answered(Era::Legacy) })
            .only_form_elicitation()
            .on_sample(|_| async { Err(ErrorObject::internal("no model here")) });
        assert_eq!(declared(&handlers, Era::Legacy)["elicitation"], json!({"form": {}}));
        let url =
            json!({"mode": "url", "message": "Sign in", "elicitationId": "e1", "url": "https://example.com"});
        let refused = handlers.answer(Era::Legacy, &Method::Elicit, url.as_object().cloned()).await;
        assert_eq!(refused.unwrap_err().code.0, -32602, "ELIC-15");
        let with_tools = json!({"messages": [], "maxTokens": 10, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
        let refused =
            handlers.answer(Era::Modern, &Method::CreateMessage, with_tools.as_object().cloned()).await;
        assert_eq!(
            refused.unwrap_err().code.0,
            -32602,
            "SAMP-02: tools to a client that did not declare them"
        );
        let with_sampling_tools = handlers.clone().sampling_tools();
        assert_eq!(declared(&with_sampling_tools, Era::Modern)["sampling"], json!({"tools": {}}));
        let reached = with_sampling_tools
            .answer(Era::Modern, &Method::CreateMessage, with_tools.as_object().cloned())
            .await;
        assert_eq!(reached.unwrap_err().message, "Internal error: no model here", "the handler got it");
    }

    #[tokio::test]
    async fn elic_17_only_an_open_url_elicitation_is_completed_and_only_once() {
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = told.clone();
        let handlers = ClientHandlers::default()
            .on_elicit(|_| async { serde_json::from_value(json!({"action": "accept"})).unwrap() })
            .on_elicitation_complete(move |id| seen.lock().unwrap().push(id));
        let complete = |id: &str| json!({"elicitationId": id}).as_object().cloned();
        handlers.notified(&Method::ElicitationComplete, complete("never-asked").as_ref());
        let url =
            json!({"mode": "url", "message": "Sign in", "elicitationId": "e1", "url": "https://example.com"});
        handlers.answer(Era::Legacy, &Method::Elicit, url.as_object().cloned()).await.unwrap();
        handlers.notified(&Method::ElicitationComplete, complete("e1").as_ref());
        handlers.notified(&Method::ElicitationComplete, complete("e1").as_ref());
        assert_eq!(*told.lock().unwrap(), ["e1"], "unknown and repeated completions are ignored");
    }

    #[tokio::test]
    async fn roots_02_03_only_file_roots_are_offered_and_list_changed_is_legacy_only() {
        let root = |uri: &str| Root { uri: uri.into(), name: None, meta: None };
        let good = ClientHandlers::default()
            .on_roots(move || async move { vec![root("file:///work")] })
            .roots_list_changed();
        assert_eq!(declared(&good, Era::Legacy)["roots"], json!({"listChanged": true}));
        assert_eq!(declared(&good, Era::Modern)["roots"], json!({}), "2026-07-28 has no roots.listChanged");
        assert!(good.tells_root_changes());
        assert!(good.answer(Era::Legacy, &Method::ListRoots, None).await.is_ok());
        let bad =
            ClientHandlers::default().on_roots(move || async move { vec![root("https://example.com/repo")] });
        let refused = bad.answer(Era::Legacy, &Method::ListRoots, None).await.unwrap_err();
        assert!(refused.message.contains("not a file:// URI"), "ROOTS-02: {}", refused.message);
    }
}
