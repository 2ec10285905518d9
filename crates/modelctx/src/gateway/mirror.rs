//! The gateway's server holds one definition per entry of the host's registry — each tool,
//! prompt, resource and template under its registry name or host URI — whose handler asks the
//! host; [`Mirror::sync`] brings the definitions in line with the registry after a change.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use modelctx_protocol::JsonObject;
use modelctx_protocol::apps::ToolUi;
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject};
use modelctx_protocol::model::{CallToolResult, Tool};
use modelctx_protocol::types::{Prompt, Resource, ResourceTemplate, TextOrBlob};
use modelctx_protocol::uri_template::UriTemplate;
use serde_json::{Value, json};

use super::calls::{Calls, call_tool};
use super::relay::on_behalf_of;
use super::virtual_servers::Selection;
use crate::client::ClientError;
use crate::host::{CompletionTarget, Host, HostError, HostPrompt, HostResource, HostTemplate, HostTool};
use crate::server::apps::edit_ui;
use crate::server::{
    Args, CompletionRequest, PromptDef, PromptError, PromptRequest, RegistrationError, RequestContext,
    ResourceDef, ResourceError, ResourceRequest, ResourceTemplateDef, Server, TaskSupport, ToolDef,
    ToolOutcome,
};

/// What the gateway's server was last given, by registry name or host URI.
pub(super) struct Mirror {
    calls: Arc<Calls>,
    /// Whether definitions need their backend's scopes ([`super::backend_scopes`]).
    scoped: bool,
    /// The backends whose skills the gateway serves as its own: their `skill://` resources
    /// are not mirrored a second time.
    relayed_skills: Arc<BTreeSet<String>>,
    /// For a virtual server, what it exposes; `None` for the whole gateway.
    selection: Option<Arc<Selection>>,
    tools: BTreeMap<String, HostTool>,
    prompts: BTreeMap<String, HostPrompt>,
    resources: BTreeMap<String, HostResource>,
    templates: BTreeMap<String, HostTemplate>,
}

/// The keys of `old` that `new` lacks or holds differently, and those of `new` that `old`
/// lacks or holds differently: what to remove, then what to add.
fn changes<'a, T: PartialEq>(
    old: &'a BTreeMap<String, T>,
    new: &'a BTreeMap<String, T>,
) -> (Vec<&'a String>, Vec<&'a T>) {
    let removed = old.iter().filter(|(key, item)| new.get(*key) != Some(item)).map(|(key, _)| key).collect();
    let added = new.iter().filter(|(key, item)| old.get(*key) != Some(item)).map(|(_, item)| item).collect();
    (removed, added)
}

impl Mirror {
    /// Nothing given yet; tool calls go through `calls`; definitions need their backend's
    /// scopes when `scoped`; the `skill://` resources of the backends in `relayed_skills` are
    /// left to the gateway's own skills; only what `selection` holds is mirrored, when set.
    pub(super) fn new(
        calls: Arc<Calls>,
        scoped: bool,
        relayed_skills: BTreeSet<String>,
        selection: Option<Selection>,
    ) -> Self {
        Self {
            calls,
            scoped,
            relayed_skills: Arc::new(relayed_skills),
            selection: selection.map(Arc::new),
            tools: BTreeMap::new(),
            prompts: BTreeMap::new(),
            resources: BTreeMap::new(),
            templates: BTreeMap::new(),
        }
    }

    /// The registry of `host` as it is now, as `self` mirrors it.
    fn now(&self, host: &Host) -> Self {
        let relayed = |resource: &HostResource| {
            resource.resource.uri.starts_with(modelctx_protocol::skills::SCHEME)
                && self.relayed_skills.contains(&resource.server)
        };
        let selected = self.selection.as_deref();
        Self {
            calls: Arc::clone(&self.calls),
            scoped: self.scoped,
            relayed_skills: Arc::clone(&self.relayed_skills),
            selection: self.selection.clone(),
            tools: host
                .tools()
                .into_iter()
                .filter(|tool| selected.is_none_or(|only| only.has_tool(&tool.name)))
                .map(|tool| (tool.name.clone(), tool))
                .collect(),
            prompts: host
                .prompts()
                .into_iter()
                .filter(|prompt| selected.is_none_or(|only| only.has_prompt(&prompt.name)))
                .map(|prompt| (prompt.name.clone(), prompt))
                .collect(),
            resources: host
                .resources()
                .into_iter()
                .filter(|resource| !relayed(resource))
                .filter(|resource| selected.is_none_or(|only| only.has_resource(&resource.uri)))
                .map(|resource| (resource.uri.clone(), resource))
                .collect(),
            templates: host
                .resource_templates()
                .into_iter()
                .filter(|template| selected.is_none_or(|only| only.has_resource(&template.uri_template)))
                .map(|template| (template.uri_template.clone(), template))
                .collect(),
        }
    }

    /// Removes from `server` what left the registry or changed, and adds what is new:
    /// resources first and tools last, so that a tool's app is there when the tool comes.
    pub(super) fn sync(&mut self, host: &Arc<Host>, server: &Server) {
        let now = self.now(host);
        let scopes = |server: &str, reads: bool| {
            let [read, write] = super::backend_scopes(server);
            let scope = if reads { read } else { write };
            if self.scoped { vec![scope] } else { Vec::new() }
        };
        let (removed, added) = changes(&self.tools, &now.tools);
        for name in removed {
            server.remove_tool(name);
        }
        let tools = added;
        let (removed, added) = changes(&self.resources, &now.resources);
        for uri in removed {
            server.remove_resource(uri);
        }
        for resource in added {
            let def = resource_def(host, resource).scopes(scopes(&resource.server, true));
            report(&resource.uri, server.add_resource(def));
        }
        let (removed, added) = changes(&self.templates, &now.templates);
        for template in removed {
            server.remove_resource_template(template);
        }
        for template in added {
            let def = template_def(host, template).scopes(scopes(&template.server, true));
            report(&template.uri_template, server.add_resource_template(def));
        }
        let (removed, added) = changes(&self.prompts, &now.prompts);
        for name in removed {
            server.remove_prompt(name);
        }
        for prompt in added {
            report(
                &prompt.name,
                server.add_prompt(prompt_def(host, prompt).scopes(scopes(&prompt.server, true))),
            );
        }
        for tool in tools {
            let reads = tool.tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
            let def = tool_def(host, &self.calls, tool).scopes(scopes(&tool.server, reads));
            report(&tool.name, server.add_tool(def));
        }
        *self = now;
    }
}

/// A definition the server refused stays out; the others are unaffected.
fn report(name: &str, registered: Result<(), RegistrationError>) {
    if let Err(error) = registered {
        tracing::warn!(name, %error, "the gateway cannot serve a backend's definition; left out");
    }
}

fn tool_def(host: &Arc<Host>, calls: &Arc<Calls>, entry: &HostTool) -> ToolDef {
    let mut tool = Tool { name: entry.name.clone(), ..entry.tool.clone() };
    if ToolUi::of(tool.meta.as_ref()).is_some_and(|ui| ui.resource_uri.is_some()) {
        // Its app is served under its host URI.
        edit_ui(&mut tool, |ui| {
            ui.resource_uri = ui.resource_uri.take().map(|uri| host.host_uri(&entry.server, &uri))
        });
    }
    let tasks = TaskSupport::from(entry.tasks);
    let (host, calls, entry) = (Arc::clone(host), Arc::clone(calls), entry.clone());
    let def = ToolDef::listed(tool, move |ctx: RequestContext, Args(arguments): Args<JsonObject>| {
        let (host, calls, entry) = (Arc::clone(&host), Arc::clone(&calls), entry.clone());
        async move { ToolOutcome::<CallToolResult>(call_tool(&host, &calls, &entry, ctx, arguments).await) }
    });
    // A task where its backend makes one (`calls.rs`): a call becomes a task in the handler.
    if tasks == TaskSupport::Forbidden { def } else { def.tasks(tasks).task_starts_in_handler() }
}

fn prompt_def(host: &Arc<Host>, entry: &HostPrompt) -> PromptDef {
    let prompt = Prompt { name: entry.name.clone(), ..entry.prompt.clone() };
    let name = entry.name.clone();
    let get_host = Arc::clone(host);
    let mut def = PromptDef::listed(prompt, move |request: PromptRequest| {
        let (host, name) = (Arc::clone(&get_host), name.clone());
        async move {
            let arguments: JsonObject =
                request.arguments.into_iter().map(|(key, value)| (key, Value::String(value))).collect();
            let got = on_behalf_of(request.ctx, host.get_prompt(&name, Value::Object(arguments))).await;
            got.map_err(prompt_error)
        }
    });
    if completes(host, &entry.server) {
        for argument in entry.prompt.arguments.iter().flatten() {
            let (host, name) = (Arc::clone(host), entry.name.clone());
            def = def.complete(argument.name.clone(), move |request: CompletionRequest| {
                let (host, name) = (Arc::clone(&host), name.clone());
                async move { complete(&host, CompletionTarget::Prompt(&name), request).await }
            });
        }
    }
    def
}

fn resource_def(host: &Arc<Host>, entry: &HostResource) -> ResourceDef {
    let resource = Resource { uri: entry.uri.clone(), ..entry.resource.clone() };
    let (host, server) = (Arc::clone(host), entry.server.clone());
    ResourceDef::listed(resource, move |request: ResourceRequest| {
        let (host, server) = (Arc::clone(&host), server.clone());
        async move { read(&host, &server, request).await }
    })
}

fn template_def(host: &Arc<Host>, entry: &HostTemplate) -> ResourceTemplateDef {
    let template = ResourceTemplate { uri_template: entry.uri_template.clone(), ..entry.template.clone() };
    let (read_host, server) = (Arc::clone(host), entry.server.clone());
    let mut def = ResourceTemplateDef::listed(template, move |request: ResourceRequest| {
        let (host, server) = (Arc::clone(&read_host), server.clone());
        async move { read(&host, &server, request).await }
    });
    let variables = UriTemplate::parse(&entry.template.uri_template)
        .map(|parsed| parsed.variables().map(str::to_owned).collect::<Vec<_>>())
        .unwrap_or_default();
    if completes(host, &entry.server) {
        for variable in variables {
            let (host, server) = (Arc::clone(host), entry.server.clone());
            let uri_template = entry.template.uri_template.clone();
            def = def.complete(variable, move |request: CompletionRequest| {
                let (host, server, uri_template) = (Arc::clone(&host), server.clone(), uri_template.clone());
                async move {
                    let target = CompletionTarget::Template { server: &server, uri_template: &uri_template };
                    complete(&host, target, request).await
                }
            });
        }
    }
    def
}

/// Whether `server` declared `completions`.
fn completes(host: &Host, server: &str) -> bool {
    host.client(server).is_some_and(|client| client.server().capabilities.completions.is_some())
}

/// The backend's completion values; none when it could not answer.
async fn complete(host: &Host, target: CompletionTarget<'_>, request: CompletionRequest) -> Vec<String> {
    let argument = json!({"name": request.argument, "value": request.value});
    let context = (!request.context.is_empty()).then(|| json!(request.context));
    match on_behalf_of(request.ctx, host.complete(target, argument, context)).await {
        Ok(completion) => completion.values,
        Err(error) => {
            tracing::debug!(%error, "a backend's completion failed; completing to nothing");
            Vec::new()
        }
    }
}

/// Reads a host URI from its backend, the contents' URIs made host URIs too.
async fn read(host: &Host, server: &str, request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> {
    let contents =
        on_behalf_of(request.ctx, host.read_resource(&request.uri)).await.map_err(resource_error)?;
    Ok(contents
        .into_iter()
        .map(|mut content| {
            let uri = match &mut content {
                TextOrBlob::Text(text) => &mut text.uri,
                TextOrBlob::Blob(blob) => &mut blob.uri,
            };
            *uri = host.host_uri(server, uri);
            content
        })
        .collect())
}

/// The JSON-RPC error a backend answered, when it did.
fn backend_error(error: &HostError) -> Option<&ErrorObject> {
    error.client_error().and_then(ClientError::rpc_error)
}

fn prompt_error(error: HostError) -> PromptError {
    match backend_error(&error) {
        Some(rpc) if rpc.code == ErrorCode::INVALID_PARAMS => {
            PromptError::InvalidArguments(rpc.message.clone())
        }
        Some(rpc) => PromptError::Failed(rpc.message.clone()),
        None => PromptError::Failed(error.to_string()),
    }
}

fn resource_error(error: HostError) -> ResourceError {
    match (&error, backend_error(&error)) {
        (HostError::UnknownResource(_), _) => ResourceError::NotFound,
        (_, Some(rpc))
            if rpc.code == ErrorCode::RESOURCE_NOT_FOUND || rpc.code == ErrorCode::INVALID_PARAMS =>
        {
            ResourceError::NotFound
        }
        (_, Some(rpc)) => ResourceError::Failed(rpc.message.clone()),
        _ => ResourceError::Failed(error.to_string()),
    }
}
