//! The host's one registry of tools and prompts: every server's tools and prompts under
//! collision-free names (`naming.rs`, each kind on its own), each mapped back to its server and
//! its own name.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use modelctx_protocol::model::Tool;
use modelctx_protocol::types::{Prompt, Resource, ResourceTemplate};
use modelctx_protocol::v2025::TaskSupport;
use serde::Serialize;

use modelctx_protocol::uri_template::UriTemplate;

use super::approval::Risk;
use super::config::ToolFilter;
use super::naming::assign_names;
use super::resource_uri::{host_uri, parse_host_uri};

/// A tool in the host's registry.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostTool {
    /// The tool's name in the registry: what a model sees and [`super::Host::call_tool`]
    /// takes.
    pub name: String,
    /// The server's name in the configuration.
    pub server: String,
    /// The tool as its server listed it (`tool.name` is the server's name for it).
    pub tool: Tool,
    /// What it may do: what its annotations say when the configuration trusts its server's
    /// annotations (`trustAnnotations`), else the worst (TOOL-08). A risky call goes to the
    /// approval hook first.
    pub risk: Risk,
    /// Whether its server may run calls of it as tasks ([`crate::client::Client::task_support`]).
    pub tasks: TaskSupport,
}

/// A prompt in the host's registry.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostPrompt {
    /// The prompt's name in the registry: what [`super::Host::get_prompt`] takes.
    pub name: String,
    /// The server's name in the configuration.
    pub server: String,
    /// The prompt as its server listed it (`prompt.name` is the server's name for it).
    pub prompt: Prompt,
}

/// A resource in the host's registry.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostResource {
    /// The resource's URI in the registry (`mcp-host://{server}/{uri}`, see
    /// [`super::resource_uri`]): what [`super::Host::read_resource`] takes.
    pub uri: String,
    /// The server's name in the configuration.
    pub server: String,
    /// The resource as its server listed it (`resource.uri` is the server's URI for it).
    pub resource: Resource,
}

/// A resource template of one of the host's servers.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostTemplate {
    /// The template in the registry (`mcp-host://{prefix}/{template}`, see
    /// [`super::resource_uri`]): what it expands to, [`super::Host::read_resource`] reads.
    pub uri_template: String,
    /// The server's name in the configuration.
    pub server: String,
    /// The template as its server listed it.
    pub template: ResourceTemplate,
}

/// Which kind of entry changed in the host's registry ([`super::Host::changes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostChange {
    /// Tools were added, removed or redescribed.
    Tools,
    /// Prompts were.
    Prompts,
    /// Resources or resource templates were.
    Resources,
    /// The resource at this host URI changed (`notifications/resources/updated` of a server
    /// that offers subscriptions: the host follows the resources each server lists when it
    /// connects, at most 256 of each).
    ResourceUpdated(String),
}

/// What one server offers the registry.
#[derive(Clone, Debug, Default)]
pub(crate) struct Listing {
    pub(crate) tools: Vec<Tool>,
    /// Whether each tool may run as a task, by its server's name for it; absent: never.
    pub(crate) tasks: BTreeMap<String, TaskSupport>,
    pub(crate) prompts: Vec<Prompt>,
    pub(crate) resources: Vec<Resource>,
    pub(crate) templates: Vec<ResourceTemplate>,
}

/// Where the configuration puts one server's entries.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    /// The server part of names and host URIs (empty: the server's own).
    pub(crate) prefix: String,
    /// Whether its tool annotations count (TOOL-08).
    pub(crate) trusts: bool,
    /// Which of its tools are taken.
    pub(crate) tools: ToolFilter,
}

/// The registry at one moment: rebuilt whole from the servers' tool lists whenever one
/// changes, and shared as an `Arc` so that readers never wait on a rebuild.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    by_name: BTreeMap<String, Arc<HostTool>>,
    /// The names of the tools only an app may call (`_meta.ui.visibility`), read once.
    app_only: BTreeSet<String>,
    prompts: BTreeMap<String, Arc<HostPrompt>>,
    /// By host URI.
    resources: BTreeMap<String, HostResource>,
    templates: Vec<HostTemplate>,
    /// The host templates parsed once, for [`Registry::locate`].
    matchers: Matchers,
    /// Each server's prefix, by server.
    prefixes: BTreeMap<String, String>,
}

/// Each host template that parses, with its server.
#[derive(Default)]
struct Matchers(Vec<(UriTemplate, String)>);

impl std::fmt::Debug for Matchers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|(template, _)| template.as_str())).finish()
    }
}

/// The items of every list, each with its server, the first of a name per server kept.
fn unique<'a, T>(
    lists: impl Iterator<Item = (&'a str, &'a [T])>,
    name: impl Fn(&T) -> &str,
    kind: &str,
) -> Vec<(&'a str, &'a T)>
where
    T: 'a,
{
    let mut items = Vec::new();
    for (server, list) in lists {
        let mut seen = BTreeSet::new();
        for item in list {
            if seen.insert(name(item).to_owned()) {
                items.push((server, item));
            } else {
                tracing::warn!(%server, name = name(item), "the server lists a {kind} name twice; keeping the first");
            }
        }
    }
    items
}

impl Registry {
    /// The registry of `lists` (what each server offers), each server's entries placed as
    /// `place` says. A server listing two tools (or prompts) of one name keeps the first; two
    /// servers listing one resource URI with no prefix, the first server.
    pub(crate) fn build(
        lists: &BTreeMap<String, Listing>,
        place: impl Fn(&str) -> Placement,
        max_name_len: usize,
    ) -> Self {
        let servers = || lists.iter().map(|(server, listing)| (server.as_str(), listing));
        let placements: BTreeMap<&str, Placement> = lists.keys().map(|s| (s.as_str(), place(s))).collect();
        let prefix = |server: &str| placements[server].prefix.as_str();
        let taken: Vec<Vec<Tool>> = servers()
            .map(|(server, listing)| {
                let filter = &placements[server].tools;
                listing.tools.iter().filter(|tool| filter.admits(&tool.name)).cloned().collect()
            })
            .collect();
        let tools = unique(
            servers().zip(&taken).map(|((s, _), tools)| (s, tools.as_slice())),
            |t: &Tool| &t.name,
            "tool",
        );
        let by_name: BTreeMap<String, Arc<HostTool>> = named(&tools, prefix, |t| &t.name, max_name_len)
            .map(|(name, server, tool)| {
                let risk = Risk::of(tool.annotations.as_ref().filter(|_| placements[server].trusts));
                let tasks = lists[server].tasks.get(&tool.name).copied().unwrap_or_default();
                let entry =
                    HostTool { name: name.clone(), server: server.into(), tool: tool.clone(), risk, tasks };
                (name, Arc::new(entry))
            })
            .collect();
        let app_only = by_name
            .values()
            .filter(|tool| !super::apps::for_model(&tool.tool))
            .map(|tool| tool.name.clone())
            .collect();
        let prompts =
            unique(servers().map(|(s, l)| (s, l.prompts.as_slice())), |p: &Prompt| &p.name, "prompt");
        let prompts = named(&prompts, prefix, |p| &p.name, max_name_len)
            .map(|(name, server, prompt)| {
                let entry = HostPrompt { name: name.clone(), server: server.into(), prompt: prompt.clone() };
                (name, Arc::new(entry))
            })
            .collect();
        let mut resources = BTreeMap::new();
        for (server, listing) in servers() {
            for resource in &listing.resources {
                let uri = host_uri(prefix(server), &resource.uri);
                let entry =
                    HostResource { uri: uri.clone(), server: server.into(), resource: resource.clone() };
                resources.entry(uri).or_insert(entry);
            }
        }
        let templates: Vec<HostTemplate> = servers()
            .flat_map(|(server, listing)| {
                listing.templates.iter().map(move |template| HostTemplate {
                    uri_template: host_uri(prefix(server), &template.uri_template),
                    server: server.into(),
                    template: template.clone(),
                })
            })
            .collect();
        let matchers = Matchers(
            templates
                .iter()
                .filter_map(|t| Some((UriTemplate::parse(&t.uri_template).ok()?, t.server.clone())))
                .collect(),
        );
        let prefixes =
            placements.into_iter().map(|(server, placed)| (server.to_owned(), placed.prefix)).collect();
        Self { by_name, app_only, prompts, resources, templates, matchers, prefixes }
    }

    /// The server and the server's own URI of a host URI: a listed resource's, one a
    /// template of the registry matches, or any under a server's prefix.
    pub(crate) fn locate(&self, uri: &str) -> Option<(String, String)> {
        if let Some(resource) = self.resources.get(uri) {
            return Some((resource.server.clone(), resource.resource.uri.clone()));
        }
        let own = |server: &str| match self.prefixes.get(server).map(String::as_str) {
            Some("") => Some(uri.to_owned()),
            _ => parse_host_uri(uri).map(|(_, own)| own),
        };
        if let Some((_, server)) =
            self.matchers.0.iter().find(|(template, _)| template.match_uri(uri).is_some())
        {
            return Some((server.clone(), own(server)?));
        }
        let (prefix, own) = parse_host_uri(uri)?;
        let server = self.prefixes.iter().find(|(_, theirs)| **theirs == prefix)?.0;
        Some((server.clone(), own))
    }

    /// The host URI of `server`'s own `uri`.
    pub(crate) fn host_uri(&self, server: &str, uri: &str) -> String {
        host_uri(self.prefixes.get(server).map_or(server, String::as_str), uri)
    }

    /// The kinds of entry that differ from `before`.
    pub(crate) fn changes_from(&self, before: &Self) -> Vec<HostChange> {
        let mut changes = Vec::new();
        if self.by_name != before.by_name || self.app_only != before.app_only {
            changes.push(HostChange::Tools);
        }
        if self.prompts != before.prompts {
            changes.push(HostChange::Prompts);
        }
        if self.resources != before.resources || self.templates != before.templates {
            changes.push(HostChange::Resources);
        }
        changes
    }

    /// Every resource, by host URI.
    pub(crate) fn resources(&self) -> Vec<HostResource> {
        self.resources.values().cloned().collect()
    }

    /// Every resource template, by server.
    pub(crate) fn templates(&self) -> Vec<HostTemplate> {
        self.templates.clone()
    }

    /// The prompt called `name`.
    pub(crate) fn prompt(&self, name: &str) -> Option<Arc<HostPrompt>> {
        self.prompts.get(name).cloned()
    }

    /// Every prompt, by name.
    pub(crate) fn prompts(&self) -> Vec<HostPrompt> {
        self.prompts.values().map(|prompt| HostPrompt::clone(prompt)).collect()
    }

    /// The tool called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Arc<HostTool>> {
        self.by_name.get(name).cloned()
    }

    /// The tool `server` calls `tool`.
    pub(crate) fn find(&self, server: &str, tool: &str) -> Option<Arc<HostTool>> {
        self.by_name.values().find(|entry| entry.server == server && entry.tool.name == tool).cloned()
    }

    /// The tool called `name`, if the model may call it.
    pub(crate) fn for_model(&self, name: &str) -> Option<Arc<HostTool>> {
        self.get(name).filter(|_| !self.app_only.contains(name))
    }

    /// Every tool the model may call, by name.
    pub(crate) fn model_tools(&self) -> Vec<HostTool> {
        let visible = self.by_name.iter().filter(|(name, _)| !self.app_only.contains(*name));
        visible.map(|(_, tool)| HostTool::clone(tool)).collect()
    }

    /// How many tools `server` contributes.
    pub(crate) fn count(&self, server: &str) -> usize {
        self.by_name.values().filter(|tool| tool.server == server).count()
    }
}

/// Each item with its registry name (by the naming rule, under its server's prefix) and its
/// server.
fn named<'a, 'p, T>(
    items: &[(&'a str, &'a T)],
    prefix: impl Fn(&str) -> &'p str,
    name: impl Fn(&T) -> &str,
    max_name_len: usize,
) -> impl Iterator<Item = (String, &'a str, &'a T)> {
    let pairs: Vec<(&str, &str)> = items.iter().map(|(server, item)| (prefix(server), name(item))).collect();
    assign_names(&pairs, max_name_len)
        .into_iter()
        .zip(items.to_vec())
        .map(|(name, (server, item))| (name, server, item))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Tool {
        Tool { name: name.into(), ..Tool::default() }
    }

    /// Under its own name, with every tool taken.
    fn placed(server: &str, trusts: bool) -> Placement {
        Placement { prefix: server.into(), trusts, tools: ToolFilter::default() }
    }

    #[test]
    fn names_map_back_to_server_and_tool() {
        let listing = |tools| Listing { tools, ..Listing::default() };
        let lists = BTreeMap::from([
            ("db".to_owned(), listing(vec![tool("query"), tool("query"), tool("drop")])),
            ("files".to_owned(), listing(vec![tool("query")])),
        ]);
        let registry = Registry::build(&lists, |server| placed(server, true), 64);
        let names: Vec<String> = registry.model_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["db__drop", "db__query", "files__query"]);
        let entry = registry.get("files__query").unwrap();
        assert_eq!((entry.server.as_str(), entry.tool.name.as_str()), ("files", "query"));
        assert_eq!(entry.risk, Risk { destructive: true, open_world: true });
        assert_eq!(registry.count("db"), 2, "a repeated name is kept once");
        assert!(registry.get("query").is_none());
    }

    /// `prefix` replaces the server's name in names and host URIs, `""` keeps the server's
    /// own; tool filters take effect before naming; resources map back through either form.
    #[test]
    fn prefixes_and_filters_place_each_servers_entries() {
        let resource = |uri: &str| Resource { uri: uri.into(), name: "r".into(), ..Resource::default() };
        let listing = |tools: &[&str], uri: &str| Listing {
            tools: tools.iter().map(|name| tool(name)).collect(),
            resources: vec![resource(uri)],
            templates: vec![ResourceTemplate {
                uri_template: "x://items/{id}".into(),
                name: "items".into(),
                ..ResourceTemplate::default()
            }],
            ..Listing::default()
        };
        let lists = BTreeMap::from([
            ("first".to_owned(), listing(&["echo", "drop"], "x://readme")),
            ("second".to_owned(), listing(&["echo.v2"], "y://readme")),
        ]);
        let place = |server: &str| match server {
            "first" => Placement {
                prefix: "one".into(),
                trusts: false,
                tools: ToolFilter { allow: None, deny: vec!["dr*".into()] },
            },
            _ => Placement { prefix: String::new(), trusts: false, tools: ToolFilter::default() },
        };
        let registry = Registry::build(&lists, place, 64);
        let names: Vec<String> = registry.model_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["echo.v2", "one__echo"], "no prefix keeps the name as it is");
        assert_eq!(registry.locate("mcp-host://one/x://readme"), Some(("first".into(), "x://readme".into())));
        assert_eq!(registry.locate("y://readme"), Some(("second".into(), "y://readme".into())));
        assert_eq!(
            registry.locate("x://items/7"),
            Some(("second".into(), "x://items/7".into())),
            "its template"
        );
        assert_eq!(
            registry.locate("mcp-host://one/x://items/7"),
            Some(("first".into(), "x://items/7".into()))
        );
        assert_eq!(
            registry.locate("mcp-host://one/z://unlisted"),
            Some(("first".into(), "z://unlisted".into()))
        );
        assert_eq!(registry.locate("z://nowhere"), None);
        assert_eq!(registry.host_uri("first", "x://a"), "mcp-host://one/x://a");
    }

    /// TOOL-08: a server's own word that a tool is read-only counts only when the
    /// configuration trusts that server's annotations.
    #[test]
    fn tool_08_annotations_count_only_from_trusted_servers() {
        let read_only = Tool {
            annotations: Some(modelctx_protocol::types::ToolAnnotations {
                read_only_hint: Some(true),
                open_world_hint: Some(false),
                ..Default::default()
            }),
            ..tool("look")
        };
        let listing = |tool: Tool| Listing { tools: vec![tool], ..Listing::default() };
        let lists = BTreeMap::from([
            ("kind".to_owned(), listing(read_only.clone())),
            ("odd".to_owned(), listing(read_only)),
        ]);
        let registry = Registry::build(&lists, |server| placed(server, server == "kind"), 64);
        assert!(!registry.get("kind__look").unwrap().risk.needs_approval());
        assert_eq!(registry.get("odd__look").unwrap().risk, Risk { destructive: true, open_world: true });
    }
}
