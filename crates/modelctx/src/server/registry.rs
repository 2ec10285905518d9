//! The registered definitions, sorted by name (or URI) so lists are deterministic (TOOL-03).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::error::RegistrationError;
use super::middleware::Layered;
use super::options::CacheDefaults;
use super::prompt::PromptDef;
use super::resource::{ReadFn, RegisteredTemplate, ResourceDef, ResourceTemplateDef};
use super::tool::{RegisteredTool, ToolDef};

#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) tools: BTreeMap<String, Arc<RegisteredTool>>,
    pub(crate) resources: BTreeMap<String, ResourceDef>,
    pub(crate) templates: BTreeMap<String, Arc<RegisteredTemplate>>,
    pub(crate) prompts: BTreeMap<String, PromptDef>,
}

/// Inserts `value` under `key`, refusing a second definition of the same name.
fn insert_unique<V>(
    map: &mut BTreeMap<String, V>,
    kind: &'static str,
    key: String,
    value: V,
) -> Result<(), RegistrationError> {
    if map.contains_key(&key) {
        return Err(RegistrationError::Duplicate { kind, name: key });
    }
    map.insert(key, value);
    Ok(())
}

/// The definition that reads a URI: a resource's, or the first matching template's.
pub(crate) struct FoundResource<'a> {
    pub(crate) read: &'a ReadFn,
    /// The template's variables, as the URI gives them (none for a resource).
    pub(crate) variables: BTreeMap<String, String>,
    pub(crate) layers: &'a Layered,
    /// The definition's own cache hints.
    pub(crate) cache: Option<CacheDefaults>,
}

impl Registry {
    pub(crate) fn build(
        tools: Vec<ToolDef>,
        resources: Vec<ResourceDef>,
        templates: Vec<ResourceTemplateDef>,
        prompts: Vec<PromptDef>,
        check_schemas: bool,
    ) -> Result<Self, RegistrationError> {
        let mut registry = Self::default();
        for tool in tools {
            let tool = RegisteredTool::new(tool, check_schemas)?;
            insert_unique(&mut registry.tools, "tool", tool.tool.name.clone(), Arc::new(tool))?;
        }
        for resource in resources {
            resource.check()?;
            insert_unique(&mut registry.resources, "resource", resource.resource.uri.clone(), resource)?;
        }
        for tool in registry.tools.values() {
            registry.check_ui_link(tool)?;
        }
        for template in templates {
            let template = RegisteredTemplate::new(template)?;
            let key = template.def.template.uri_template.clone();
            insert_unique(&mut registry.templates, "resource template", key, Arc::new(template))?;
        }
        for prompt in prompts {
            prompt.check()?;
            insert_unique(&mut registry.prompts, "prompt", prompt.prompt.name.clone(), prompt)?;
        }
        Ok(registry)
    }

    /// Refuses a tool whose UI link names no registered app.
    pub(crate) fn check_ui_link(&self, tool: &RegisteredTool) -> Result<(), RegistrationError> {
        super::apps::check_link(&tool.tool.name, tool.ui.as_ref(), |uri| self.resources.contains_key(uri))
    }

    /// Whether some definition has layers of its own.
    pub(crate) fn has_layers(&self) -> bool {
        self.tools.values().any(|t| t.layers.is_some())
            || self.prompts.values().any(|p| p.layers.is_some())
            || self.resources.values().any(|r| r.layers.is_some())
            || self.templates.values().any(|t| t.def.layers.is_some())
    }

    /// The resource at `uri`: a fixed one, or the first template (in URI-template order)
    /// that matches, with its handler, the template's variables and its layers.
    pub(crate) fn find_resource(&self, uri: &str) -> Option<FoundResource<'_>> {
        if let Some(resource) = self.resources.get(uri) {
            let (read, layers, cache) = (&resource.read, &resource.layers, resource.cache);
            return Some(FoundResource { read, variables: BTreeMap::new(), layers, cache });
        }
        self.templates.values().find_map(|t| {
            let variables = t.parsed.match_uri(uri)?;
            Some(FoundResource { read: &t.def.read, variables, layers: &t.def.layers, cache: t.def.cache })
        })
    }

    /// Whether some tool runs as a task (in either era).
    pub(crate) fn offers_tasks(&self) -> bool {
        self.tools.values().any(|tool| tool.tasks != super::TaskSupport::Forbidden)
    }

    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.values().any(|p| !p.completers.is_empty())
            || self.templates.values().any(|t| !t.def.completers.is_empty())
    }
}
