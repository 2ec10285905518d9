//! The registered definitions, sorted by name (or URI) so lists are deterministic (TOOL-03).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::error::RegistrationError;
use super::prompt::PromptDef;
use super::resource::{RegisteredTemplate, ResourceDef, ResourceTemplateDef};
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

impl Registry {
    pub(crate) fn build(
        tools: Vec<ToolDef>,
        resources: Vec<ResourceDef>,
        templates: Vec<ResourceTemplateDef>,
        prompts: Vec<PromptDef>,
    ) -> Result<Self, RegistrationError> {
        let mut registry = Self::default();
        for tool in tools {
            let tool = RegisteredTool::new(tool)?;
            insert_unique(&mut registry.tools, "tool", tool.tool.name.clone(), Arc::new(tool))?;
        }
        for resource in resources {
            insert_unique(&mut registry.resources, "resource", resource.resource.uri.clone(), resource)?;
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

    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.values().any(|p| !p.completers.is_empty())
            || self.templates.values().any(|t| !t.def.completers.is_empty())
    }
}
