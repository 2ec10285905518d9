//! The host's one registry of tools: every server's tools under collision-free names
//! (`naming.rs`), each mapped back to its server and its own name.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use modelctx_protocol::model::Tool;
use serde::Serialize;

use super::approval::Risk;
use super::naming::assign_names;

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
    /// What its annotations say it may do; a risky call goes to the approval hook first.
    pub risk: Risk,
}

/// The registry at one moment: rebuilt whole from the servers' tool lists whenever one
/// changes, and shared as an `Arc` so that readers never wait on a rebuild.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    by_name: BTreeMap<String, Arc<HostTool>>,
}

impl Registry {
    /// The registry of `lists` (tools by server). A server listing two tools of one name
    /// keeps the first.
    pub(crate) fn build(lists: &BTreeMap<String, Vec<Tool>>, max_name_len: usize) -> Self {
        let mut tools: Vec<(&str, &Tool)> = Vec::new();
        for (server, list) in lists {
            let mut seen = BTreeSet::new();
            for tool in list {
                if seen.insert(tool.name.as_str()) {
                    tools.push((server, tool));
                } else {
                    tracing::warn!(%server, tool = %tool.name, "the server lists a tool name twice; keeping the first");
                }
            }
        }
        let pairs: Vec<(&str, &str)> =
            tools.iter().map(|(server, tool)| (*server, tool.name.as_str())).collect();
        let names = assign_names(&pairs, max_name_len);
        let by_name = names
            .into_iter()
            .zip(tools)
            .map(|(name, (server, tool))| {
                let risk = Risk::of(tool.annotations.as_ref());
                let entry = HostTool { name: name.clone(), server: server.into(), tool: tool.clone(), risk };
                (name, Arc::new(entry))
            })
            .collect();
        Self { by_name }
    }

    /// The tool called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Arc<HostTool>> {
        self.by_name.get(name).cloned()
    }

    /// Every tool, by name.
    pub(crate) fn tools(&self) -> Vec<HostTool> {
        self.by_name.values().map(|tool| HostTool::clone(tool)).collect()
    }

    /// How many tools `server` contributes.
    pub(crate) fn count(&self, server: &str) -> usize {
        self.by_name.values().filter(|tool| tool.server == server).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> Tool {
        Tool { name: name.into(), ..Tool::default() }
    }

    #[test]
    fn names_map_back_to_server_and_tool() {
        let lists = BTreeMap::from([
            ("db".to_owned(), vec![tool("query"), tool("query"), tool("drop")]),
            ("files".to_owned(), vec![tool("query")]),
        ]);
        let registry = Registry::build(&lists, 64);
        let names: Vec<String> = registry.tools().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["db__drop", "db__query", "files__query"]);
        let entry = registry.get("files__query").unwrap();
        assert_eq!((entry.server.as_str(), entry.tool.name.as_str()), ("files", "query"));
        assert_eq!(entry.risk, Risk { destructive: true, open_world: true });
        assert_eq!(registry.count("db"), 2, "a repeated name is kept once");
        assert!(registry.get("query").is_none());
    }
}
