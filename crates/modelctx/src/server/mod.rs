//! MCP servers: register tools, resources and prompts; serve both protocol eras.
//!
//! ```
//! use modelctx::server::{Args, Server, ToolDef};
//! use modelctx_protocol::types::Implementation;
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Echo { message: String }
//!
//! let server = Server::builder("demo", "1.0")
//!     .tool(ToolDef::new("echo", |Args(Echo { message }): Args<Echo>| async move { message }))
//!     .build()
//!     .expect("valid definitions");
//! assert_eq!(server.tool_names(), ["echo"]);
//! ```
//!
//! Capabilities follow from what is registered: a server with tools offers `tools`, one with
//! resources or templates offers `resources` (with `subscribe` and `listChanged`), one with
//! prompts offers `prompts`, and one with a completer offers `completions`.

mod announce;
mod answer;
pub mod apps;
mod cache_hints;
mod call_answer;
#[cfg(feature = "experimental")]
mod card;
mod completion;
mod context;
#[cfg(feature = "experimental")]
pub mod definition_tags;
pub(crate) mod dispatch;
mod error;
#[cfg(all(feature = "experimental", feature = "http-client"))]
pub mod event_webhooks;
#[cfg(feature = "experimental")]
pub mod events;
pub(crate) mod exchange;
mod extract;
pub(crate) mod input;
#[cfg(feature = "experimental")]
pub mod interceptors;
mod listen;
#[cfg(feature = "experimental")]
mod lists_over_get;
pub mod middleware;
mod options;
pub(crate) mod outgoing;
mod pagination;
pub(crate) mod params;
mod principal;
mod prompt;
mod question;
mod registry;
mod request_state;
mod resource;
pub(crate) mod session;
pub(crate) mod sink;
#[cfg(feature = "skills")]
pub mod skills;
mod strings;
pub mod tasks;
pub mod telemetry;
mod tool;
mod tool_result;
mod typed_call;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use modelctx_protocol::era::ServerVersions;
use modelctx_protocol::model::Tool;
use modelctx_protocol::types::Implementation;
use modelctx_protocol::{JsonObject, Method};
use tokio::sync::broadcast;

pub use answer::Answer;
#[cfg(feature = "experimental")]
pub use card::{CardSettings, DEFAULT_CARD_MAX_AGE};
pub use completion::CompletionRequest;
pub use context::RequestContext;
pub use error::RegistrationError;
pub use extract::{
    Args, FromRequest, Handler, HandlerRequest, IntoOutput, Rejection, State, ToolCallParts, ToolHandler,
};
pub use input::InputError;
pub use options::{CacheDefaults, Limits, ServerOptions};
pub use principal::Principal;
pub use prompt::{PromptDef, PromptError, PromptRequest};
pub use question::Question;
pub use request_state::{StateKey, StateKeyError, StateKeys};
pub use resource::{
    ResourceDef, ResourceError, ResourceRequest, ResourceTemplateDef, blob_contents, text_contents,
};
pub use session::LegacySession;
pub use tasks::{TaskOptions, TaskSupport};
pub use tool::ToolDef;
pub use tool_result::{IntoCallToolResult, Json, ToolOutcome, error_result};

pub(crate) use context::{StateMap, Tokens};
pub(crate) use listen::covers;
use registry::Registry;

/// A change a connected client may want to hear about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerEvent {
    /// Tools were added or removed.
    ToolsChanged,
    /// Resources or templates were added or removed.
    ResourcesChanged,
    /// Prompts were added or removed.
    PromptsChanged,
    /// The resource at this URI changed.
    ResourceUpdated(String),
    /// The task with this id changed status, or was asked or answered a question.
    TaskChanged(String),
    /// The event types changed (experimental, SEP-3415).
    #[cfg(feature = "experimental")]
    EventsChanged,
}

/// An MCP server: its definitions and options. Cheap to clone; every connection shares it.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    info: Implementation,
    /// `info` as JSON, serialised once for the `_meta` of every 2026-07-28 result.
    info_json: Arc<serde_json::value::RawValue>,
    instructions: Option<String>,
    versions: ServerVersions,
    options: ServerOptions,
    registry: RwLock<Registry>,
    /// `tools/list` pages as JSON, by era and cursor; emptied whenever the registry changes.
    tool_pages: dispatch::ToolPages,
    state: StateMap,
    state_keys: StateKeys,
    /// Tells changes here and across instances.
    announcer: announce::Announcer,
    /// The layers every request passes through.
    layers: middleware::Layered,
    /// Whether the lifecycle's own layers wrap them (`middleware::lifecycle`).
    lifecycle_layers: bool,
    /// The `_meta` of the calls read typed, read once per text (`Server::read_typed`).
    meta_memo: modelctx_protocol::era::MetaMemo,
    /// Whether some tool, prompt or resource has layers of its own.
    layered_targets: AtomicBool,
    /// The tasks of the tasks extension.
    tasks: tasks::Tasks,
    /// Whether some tool may ever have run as a task: a server that never had one does not
    /// look its tools up for task support on each `tools/call`. (Not reset when such a tool
    /// is removed; the capability is read from the registry.)
    task_tools: AtomicBool,
    /// The extensions declared with `ServerBuilder::extension`.
    extensions: BTreeMap<String, JsonObject>,
    /// The skills of the Skills extension.
    #[cfg(feature = "skills")]
    skills: skills::Skills,
    /// Where redeemed `requestState`s are remembered, when each may be redeemed once.
    state_once: Option<Arc<dyn crate::store::OnceStore>>,
    /// Told when a 2025-11-25 client says its roots changed.
    roots_changed: Option<RootsChangedHook>,
    /// What its card says besides its info (server cards, experimental).
    #[cfg(feature = "experimental")]
    card: Option<CardSettings>,
}

/// The hook [`ServerBuilder::on_roots_changed`] sets.
type RootsChangedHook = Arc<dyn Fn(Option<String>) -> futures::future::BoxFuture<'static, ()> + Send + Sync>;

/// Builds a [`Server`]. Definitions are checked when [`ServerBuilder::build`] runs.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    versions: ServerVersions,
    options: ServerOptions,
    tools: Vec<ToolDef>,
    resources: Vec<ResourceDef>,
    templates: Vec<ResourceTemplateDef>,
    prompts: Vec<PromptDef>,
    state: StateMap,
    state_keys: Option<StateKeys>,
    layers: middleware::Layered,
    lifecycle_layers: bool,
    extensions: BTreeMap<String, JsonObject>,
    task_store: Option<Arc<dyn tasks::TaskStore>>,
    bus: Option<Arc<dyn crate::store::Bus>>,
    #[cfg(feature = "skills")]
    skills: Vec<skills::Skill>,
    apps: Vec<apps::AppResource>,
    state_once: Option<Arc<dyn crate::store::OnceStore>>,
    roots_changed: Option<RootsChangedHook>,
    #[cfg(feature = "experimental")]
    card: Option<CardSettings>,
    /// An extension set up wrong (its id, why), refused when building.
    #[cfg(feature = "experimental")]
    invalid_extension: Option<(String, String)>,
    /// The event hubs served, told where to announce their types' changes.
    #[cfg(feature = "experimental")]
    event_hubs: Vec<events::Events>,
}

/// Why a server could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// A definition was refused.
    Registration(RegistrationError),
    /// No `requestState` key was configured and none could be generated.
    StateKey(StateKeyError),
    /// Two skills share a URI.
    #[cfg(feature = "skills")]
    Skill(skills::SkillError),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Registration(e) => e.fmt(f),
            Self::StateKey(e) => e.fmt(f),
            #[cfg(feature = "skills")]
            Self::Skill(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<RegistrationError> for BuildError {
    fn from(error: RegistrationError) -> Self {
        Self::Registration(error)
    }
}

impl Server {
    /// Starts a server called `name`, at `version`: how it introduces itself to clients
    /// (`serverInfo`). [`Server::with_info`] takes the whole [`Implementation`] (a title,
    /// icons, a website).
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        Self::with_info(Implementation::new(name, version))
    }

    /// Starts a server that introduces itself as `info`.
    pub fn with_info(info: Implementation) -> ServerBuilder {
        ServerBuilder {
            info,
            instructions: None,
            versions: ServerVersions::default(),
            options: ServerOptions::default(),
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            state: StateMap::default(),
            state_keys: None,
            layers: middleware::Layered::default(),
            lifecycle_layers: true,
            extensions: BTreeMap::new(),
            task_store: None,
            bus: None,
            #[cfg(feature = "skills")]
            skills: Vec::new(),
            apps: Vec::new(),
            state_once: None,
            roots_changed: None,
            #[cfg(feature = "experimental")]
            card: None,
            #[cfg(feature = "experimental")]
            invalid_extension: None,
            #[cfg(feature = "experimental")]
            event_hubs: Vec::new(),
        }
    }

    /// How the server introduces itself.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The versions served in each era.
    pub fn versions(&self) -> &ServerVersions {
        &self.inner.versions
    }

    /// The options the server was built with.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// Takes a notification of a 2025-11-25 session (`session_id` over HTTP) that concerns
    /// the server rather than the session's state: `notifications/roots/list_changed` runs
    /// the [`ServerBuilder::on_roots_changed`] hook.
    pub(crate) fn on_session_notification(&self, method: &Method, session_id: Option<&str>) {
        if *method != Method::RootsListChanged {
            return;
        }
        if let Some(hook) = &self.inner.roots_changed {
            tokio::spawn(hook(session_id.map(str::to_owned)));
        }
    }

    /// The registered tool names, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<String> {
        self.read_registry().tools.keys().cloned().collect()
    }

    /// Adds (or replaces) a tool while the server runs; clients that listen hear
    /// `notifications/tools/list_changed`.
    pub fn add_tool(&self, tool: ToolDef) -> Result<(), RegistrationError> {
        let registered = tool::RegisteredTool::new(tool, self.inner.options.check_schemas)?;
        self.note_layers(registered.layers.is_some());
        if registered.tasks != TaskSupport::Forbidden {
            self.inner.task_tools.store(true, Ordering::Relaxed);
        }
        {
            let mut registry = self.write_registry();
            registry.check_ui_link(&registered)?;
            registry.tools.insert(registered.tool.name.clone(), Arc::new(registered));
        }
        self.publish(ServerEvent::ToolsChanged);
        Ok(())
    }

    /// The arguments of tool `name` that clients mirror into `Mcp-Param-*` headers; `None`
    /// for an unknown tool.
    pub fn param_headers(&self, name: &str) -> Option<Vec<modelctx_protocol::headers::McpParamHeader>> {
        self.read_registry().tools.get(name).map(|tool| tool.param_headers.clone())
    }

    /// Removes a tool; `false` when there was none by that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(ServerEvent::ToolsChanged, |registry| registry.tools.remove(name).is_some())
    }

    /// Adds (or replaces) a prompt; listeners hear `notifications/prompts/list_changed`.
    pub fn add_prompt(&self, prompt: PromptDef) -> Result<(), RegistrationError> {
        prompt.check()?;
        self.note_layers(prompt.layers.is_some());
        self.change(ServerEvent::PromptsChanged, |registry| {
            registry.prompts.insert(prompt.prompt.name.clone(), prompt);
            true
        });
        Ok(())
    }

    /// Removes a prompt; `false` when there was none by that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(ServerEvent::PromptsChanged, |registry| registry.prompts.remove(name).is_some())
    }

    /// Adds (or replaces) a resource; listeners hear `notifications/resources/list_changed`.
    /// A URI that is not an absolute RFC 3986 URI is refused.
    pub fn add_resource(&self, resource: ResourceDef) -> Result<(), RegistrationError> {
        resource.check()?;
        self.note_layers(resource.layers.is_some());
        self.change(ServerEvent::ResourcesChanged, |registry| {
            registry.resources.insert(resource.resource.uri.clone(), resource);
            true
        });
        Ok(())
    }

    /// Removes the resource at `uri`; `false` when there was none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(ServerEvent::ResourcesChanged, |registry| registry.resources.remove(uri).is_some())
    }

    /// Adds (or replaces) a resource template; listeners hear
    /// `notifications/resources/list_changed`.
    pub fn add_resource_template(&self, template: ResourceTemplateDef) -> Result<(), RegistrationError> {
        let template = resource::RegisteredTemplate::new(template)?;
        self.note_layers(template.def.layers.is_some());
        self.change(ServerEvent::ResourcesChanged, |registry| {
            registry.templates.insert(template.def.template.uri_template.clone(), Arc::new(template));
            true
        });
        Ok(())
    }

    /// Removes the template with this URI template; `false` when there was none.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.change(ServerEvent::ResourcesChanged, |registry| {
            registry.templates.remove(uri_template).is_some()
        })
    }

    /// Remembers that a definition has layers, so requests look for them from now on.
    fn note_layers(&self, layered: bool) {
        if layered {
            self.inner.layered_targets.store(true, Ordering::Relaxed);
        }
    }

    /// Applies `edit` to the registry and announces `event` when it changed something.
    fn change(&self, event: ServerEvent, edit: impl FnOnce(&mut Registry) -> bool) -> bool {
        let changed = edit(&mut self.write_registry());
        if changed {
            self.publish(event);
        }
        changed
    }

    /// Tells subscribed clients that the resource at `uri` changed.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.publish(ServerEvent::ResourceUpdated(uri.into()));
    }

    /// Changes as they happen, for transports that forward them to clients.
    /// With a [`ServerBuilder::bus`], the other instances' changes are heard too.
    pub fn events(&self) -> broadcast::Receiver<ServerEvent> {
        self.inner.announcer.subscribe()
    }

    fn publish(&self, event: ServerEvent) {
        self.inner.announcer.announce(event);
    }

    /// The bus between this server's instances, if it has one.
    pub(crate) fn bus(&self) -> Option<&Arc<dyn crate::store::Bus>> {
        self.inner.announcer.bus()
    }

    /// This instance's id on the bus (random, made as the server is built).
    #[cfg(feature = "http-server")]
    pub(crate) fn instance(&self) -> &str {
        self.inner.announcer.instance()
    }

    fn read_registry(&self) -> std::sync::RwLockReadGuard<'_, Registry> {
        self.inner.registry.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write_registry(&self) -> std::sync::RwLockWriteGuard<'_, Registry> {
        let registry = self.inner.registry.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Under the write lock: no page of the old tools can be stored after this.
        self.inner.tool_pages.clear();
        registry
    }

    pub(crate) fn state(&self) -> &StateMap {
        &self.inner.state
    }

    pub(crate) fn state_keys(&self) -> &StateKeys {
        &self.inner.state_keys
    }
}

impl ServerBuilder {
    /// How to use the server, for the model (`instructions`).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The versions to serve (default: 2026-07-28 and every legacy version).
    pub fn versions(mut self, versions: ServerVersions) -> Self {
        self.versions = versions;
        self
    }

    /// Page size, cache hints and limits.
    pub fn options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// Shared state for handlers, reached with [`State<T>`] or [`RequestContext::state`].
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state = self.state.with(value);
        self
    }

    /// The keys that seal `requestState` for multi-round-trip requests. Servers behind one
    /// load balancer must share them; by default each server makes a random key, valid for
    /// ten minutes of state.
    pub fn request_state_keys(mut self, keys: StateKeys) -> Self {
        self.state_keys = Some(keys);
        self
    }

    /// Where tasks are kept (default: this process's memory). Instances that share one
    /// store — and a [`bus`](Self::bus) — answer for each other's tasks: any of them reads,
    /// answers or cancels a task, while its work runs on the instance that created it.
    pub fn task_store(mut self, store: Arc<dyn tasks::TaskStore>) -> Self {
        self.task_store = Some(store);
        self
    }

    /// The bus between the instances of one deployment: a change on one (a tool added, a
    /// resource updated, a task moved on) reaches the listeners of every instance, and a
    /// legacy client's answer reaches the instance whose handler waits for it. None by
    /// default: one instance alone needs none.
    pub fn bus(mut self, bus: Arc<dyn crate::store::Bus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Redeems each `requestState` at most once (MRTR-10): a retry that brings a state
    /// already redeemed is refused with `-32602`. The store remembers each state for its
    /// lifetime; instances behind one balancer share one (`modelctx_redis::RedisOnceStore`).
    /// Off by default: a client may then retry a round after a lost answer.
    pub fn request_state_once(mut self, store: Arc<dyn crate::store::OnceStore>) -> Self {
        self.state_once = Some(store);
        self
    }

    /// Wraps every request the method table serves in `layer` (see [`middleware`]). The
    /// last layer added is the outermost: it sees the request first and the answer last.
    /// The lifecycle's own layers ([`middleware::lifecycle`]) wrap them all, unless
    /// [`ServerBuilder::without_lifecycle_layers`] leaves them out.
    pub fn layer(mut self, layer: impl middleware::McpLayer) -> Self {
        self.layers = self.layers.wrap(layer, middleware::router);
        self
    }

    /// Leaves out the lifecycle's own layers — [`middleware::CatchPanic`],
    /// [`middleware::ArrivalDeadline`] and [`middleware::Turn`], which otherwise wrap the
    /// server's layers in that order — so that [`ServerBuilder::layer`] puts each where the
    /// server wants it (or leaves one out knowingly: without `Turn` the endpoint runs every
    /// admitted request at once; without `CatchPanic` a panicking handler's request is never
    /// answered).
    pub fn without_lifecycle_layers(mut self) -> Self {
        self.lifecycle_layers = false;
        self
    }

    /// Registers a tool.
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.push(tool);
        self
    }

    /// Registers many tools at once, such as the `tools()` that `#[modelctx::tools]`
    /// generates for an impl block.
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolDef>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Requires of the callers of each tool registered so far the scopes `policy` names for
    /// it (see [`ToolDef::scopes`]): for example one scope for the tools that only read
    /// (`readOnlyHint`) and another for the rest.
    pub fn tool_scopes(mut self, policy: impl Fn(&Tool) -> Vec<String>) -> Self {
        self.tools = self
            .tools
            .into_iter()
            .map(|def| {
                let scopes = policy(def.tool());
                def.scopes(scopes)
            })
            .collect();
        self
    }

    /// Registers a resource at a fixed URI.
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources.push(resource);
        self
    }

    /// Registers a resource template.
    pub fn resource_template(mut self, template: ResourceTemplateDef) -> Self {
        self.templates.push(template);
        self
    }

    /// Registers a skill (the Skills extension): its files become `skill://` resources, and
    /// the server declares the extension and answers `skills/list`, `skills/get` and
    /// `resources/directory/read`.
    #[cfg(feature = "skills")]
    pub fn skill(mut self, skill: skills::Skill) -> Self {
        self.skills.push(skill);
        self
    }

    /// Registers an app (MCP Apps): a `ui://` resource holding an HTML5 document, which
    /// tools link to with [`ToolDef::ui`]. The server then declares the
    /// `io.modelcontextprotocol/ui` extension.
    pub fn app(mut self, app: apps::AppResource) -> Self {
        self.apps.push(app);
        self
    }

    /// Runs `hook` each time a 2025-11-25 client that declared `roots.listChanged` says its
    /// roots changed (`notifications/roots/list_changed`), with the session's id (`None` over
    /// stdio, where the connection is the session): the place to forget roots kept from
    /// [`RequestContext::list_roots`] and ask again. The hook runs on a task of its own, so
    /// a slow one never holds up the session. (2026-07-28 clients send their roots with each
    /// request that needs them; there is nothing to be told.)
    pub fn on_roots_changed<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(Option<String>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        self.roots_changed = Some(Arc::new(move |session| Box::pin(hook(session))));
        self
    }

    /// Registers a prompt.
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// Declares a 2026-07-28 extension the server supports, with its settings, in
    /// `capabilities.extensions` (`server/discover`). The id must have a prefix and follow
    /// the `_meta` key rules (`com.example/thing`; `io.modelcontextprotocol/…` for official
    /// ones, EXT-01), else building fails. Extensions the runtime serves itself (tasks) are
    /// declared without this.
    pub fn extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }

    /// Serves a card (server cards, SEP-2127, experimental) at `<endpoint>/server-card` over
    /// Streamable HTTP, made from the server's info and versions and `settings`; the server
    /// then declares the `io.modelcontextprotocol/server-card` extension.
    #[cfg(feature = "experimental")]
    pub fn card(mut self, settings: CardSettings) -> Self {
        self.extensions.insert(modelctx_protocol::server_card::EXTENSION_ID.to_owned(), JsonObject::new());
        self.card = Some(settings);
        self
    }

    /// Tags the definitions (experimental, `modelctx_protocol::definition_tags`): 2026-07-28
    /// list results and `server/discover` carry the `tag` of the whole collection the caller
    /// sees, and calls that send known tags are checked against them. A layer: add it after the
    /// layers that filter listings (it is then outside them and tags what they let through).
    /// The server declares `io.github.modelctx/definition-tags`.
    #[cfg(feature = "experimental")]
    pub fn definition_tags(mut self) -> Self {
        let id = modelctx_protocol::definition_tags::EXTENSION_ID.to_owned();
        self.extensions.insert(id, JsonObject::new());
        self.layer(definition_tags::DefinitionTags)
    }

    /// Offers `events` (experimental, SEP-3415): answers `events/list`, `events/poll`,
    /// `events/stream` (and, with `EventOptions::webhooks`, `events/subscribe`) for their types,
    /// declares `io.modelcontextprotocol/events` with `listChanged`, and tells listeners that
    /// asked (`eventsListChanged`) when the types change. Keep a clone of `events` to emit
    /// occurrences and change the types.
    #[cfg(feature = "experimental")]
    pub fn events(mut self, events: events::Events) -> Self {
        let settings = serde_json::json!({"listChanged": true});
        let id = modelctx_protocol::events::EXTENSION_ID.to_owned();
        self.extensions.insert(id, settings.as_object().cloned().unwrap_or_default());
        self.event_hubs.push(events.clone());
        self.layer(events)
    }

    /// Hosts `interceptors` (experimental, SEP-2624): answers `interceptors/list` and
    /// `interceptor/invoke` for them, and declares `io.modelcontextprotocol/interceptors` with
    /// the events they run on (`supportedEvents`). Give them all in one call: names must be
    /// unique (building fails otherwise).
    #[cfg(feature = "experimental")]
    pub fn interceptors(
        mut self,
        interceptors: impl IntoIterator<Item = interceptors::InterceptorDef>,
    ) -> Self {
        use modelctx_protocol::interceptors::EXTENSION_ID;
        let hosted: Arc<[interceptors::InterceptorDef]> = interceptors.into_iter().collect();
        let mut events: Vec<&str> = hosted
            .iter()
            .flat_map(|hosted| {
                hosted.descriptor().hooks.iter().flat_map(|hook| hook.events.iter().map(String::as_str))
            })
            .collect();
        events.sort_unstable();
        events.dedup();
        let mut names: Vec<&str> = hosted.iter().map(|hosted| hosted.descriptor().name.as_str()).collect();
        names.sort_unstable();
        if let Some(twice) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            self.invalid_extension =
                Some((EXTENSION_ID.to_owned(), format!("two interceptors are called {:?}", twice[0])));
        }
        let settings = serde_json::json!({ "supportedEvents": events });
        self.extensions.insert(EXTENSION_ID.to_owned(), settings.as_object().cloned().unwrap_or_default());
        self.layer(interceptors::Hosting::new(hosted))
    }

    /// Checks every definition and builds the server.
    pub fn build(self) -> Result<Server, BuildError> {
        #[cfg(feature = "experimental")]
        if let Some((id, reason)) = self.invalid_extension.clone() {
            return Err(RegistrationError::Extension { id, reason }.into());
        }
        #[cfg(feature = "experimental")]
        if let Some(card) = &self.card {
            card.validate(&self.info, &self.versions).map_err(|e| RegistrationError::Extension {
                id: modelctx_protocol::server_card::EXTENSION_ID.to_owned(),
                reason: e.to_string(),
            })?;
        }
        for id in self.extensions.keys() {
            let refused = |reason: String| RegistrationError::Extension { id: id.clone(), reason };
            if !id.contains('/') {
                return Err(refused("an extension id needs a prefix, as in com.example/name".into()).into());
            }
            modelctx_protocol::meta::validate_key(id).map_err(|e| refused(e.to_string()))?;
        }
        #[cfg(feature = "skills")]
        let skills = skills::Skills::new(self.skills.clone()).map_err(BuildError::Skill)?;
        let offers_apps = !self.apps.is_empty();
        let mut resources = self.resources;
        #[cfg(feature = "skills")]
        resources.extend(self.skills.iter().flat_map(skills::Skill::resources));
        for app in self.apps {
            resources.push(app.into_resource()?);
        }
        let mut extensions = self.extensions;
        if offers_apps {
            extensions.insert(modelctx_protocol::apps::EXTENSION_ID.to_owned(), JsonObject::new());
        }
        let registry =
            Registry::build(self.tools, resources, self.templates, self.prompts, self.options.check_schemas)?;
        let state_keys = match self.state_keys {
            Some(keys) => keys,
            None => StateKeys::new(
                StateKey::random().map_err(BuildError::StateKey)?,
                Vec::new(),
                std::time::Duration::from_secs(600),
            ),
        };
        let layered_targets = AtomicBool::new(registry.has_layers());
        let task_tools = AtomicBool::new(registry.offers_tasks());
        let task_store = self.task_store.unwrap_or_else(|| Arc::new(tasks::MemoryTaskStore::new()));
        let tasks = tasks::Tasks::new(self.options.tasks, task_store);
        let mut instance = [0u8; 8];
        getrandom::fill(&mut instance)
            .map_err(|e| BuildError::StateKey(StateKeyError::NoRandomness(e.to_string())))?;
        let instance: String = instance.iter().map(|b| format!("{b:02x}")).collect();
        let announcer = announce::Announcer::new(self.bus, instance.into());
        // The event types' changes are told to this server's listeners.
        #[cfg(feature = "experimental")]
        for hub in &self.event_hubs {
            hub.tell_changes_to(announcer.local());
        }
        Ok(Server {
            inner: Arc::new(Inner {
                tasks,
                info_json: serde_json::value::to_raw_value(&self.info)
                    .expect("an Implementation serialises")
                    .into(),
                info: self.info,
                instructions: self.instructions,
                versions: self.versions,
                options: self.options,
                registry: RwLock::new(registry),
                tool_pages: dispatch::ToolPages::default(),
                state: self.state,
                state_keys,
                announcer,
                layers: self.layers,
                lifecycle_layers: self.lifecycle_layers,
                meta_memo: Default::default(),
                layered_targets,
                task_tools,
                extensions,
                #[cfg(feature = "skills")]
                skills,
                state_once: self.state_once,
                roots_changed: self.roots_changed,
                #[cfg(feature = "experimental")]
                card: self.card,
            }),
        })
    }
}
