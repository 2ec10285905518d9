//! MCP Apps on the server (`io.modelcontextprotocol/ui`): UI resources, and the tools that
//! link to them.
//!
//! ```
//! use modelctx::server::apps::AppResource;
//! use modelctx::server::{Server, ToolDef};
//! use modelctx::protocol::apps::{UiCsp, UiResourceMeta, Visibility};
//! use modelctx::protocol::types::Implementation;
//!
//! let html = "<!DOCTYPE html><html><body><p id=time></p></body></html>";
//! let app = AppResource::new("ui://clock/app.html", "Clock", html).ui(UiResourceMeta {
//!     csp: Some(UiCsp { connect_domains: vec!["https://time.example".into()], ..UiCsp::default() }),
//!     ..UiResourceMeta::default()
//! });
//! let now = ToolDef::new("now", || async { "12:00" }).ui("ui://clock/app.html");
//! let tick = ToolDef::new("tick", || async { "ticked" })
//!     .ui("ui://clock/app.html")
//!     .visibility(&[Visibility::App]);
//! let server = Server::builder("clock", "1").app(app).tool(now).tool(tick).build();
//! assert!(server.is_ok());
//! ```
//!
//! What the server guarantees:
//! - **APPS-01.** An [`AppResource`] is refused when building unless its URI is `ui://…`,
//!   its text is an HTML5 document and its CSP origins can be written into a policy; it is
//!   listed and read with MIME type [`MIME_TYPE`], its `_meta.ui` on both.
//! - **Links.** A tool whose `_meta.ui.resourceUri` names no registered `ui://` resource is
//!   refused when building, so a host never follows a link to nothing.
//! - **APPS-02.** A client that did not declare the extension with [`MIME_TYPE`] among its
//!   `mimeTypes` has no app to call a tool only the app may call: `tools/list` leaves such
//!   tools out for it. Every tool with a UI must still answer with `content` a model can
//!   read: a successful result with none is the server's error (`-32603`), not an empty
//!   answer to a client that shows no UI.

use modelctx_protocol::apps::{self, MIME_TYPE, ToolUi, UiResourceMeta};
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::{CallToolResult, Tool};
use modelctx_protocol::types::TextOrBlob;
use serde_json::Value;

use super::error::RegistrationError;
use super::resource::{ResourceDef, ResourceRequest, text_contents};

/// A UI resource: an HTML5 document at a `ui://` URI, rendered by hosts that show apps.
#[derive(Clone, Debug)]
pub struct AppResource {
    uri: String,
    name: String,
    html: String,
    description: Option<String>,
    ui: UiResourceMeta,
}

impl AppResource {
    /// The app `name` at `uri` (`ui://server/view`), whose document is `html`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>, html: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            html: html.into(),
            description: None,
            ui: UiResourceMeta::default(),
        }
    }

    /// What the app shows.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// How hosts render it: the origins it may reach, the permissions it asks for, its
    /// border.
    pub fn ui(mut self, ui: UiResourceMeta) -> Self {
        self.ui = ui;
        self
    }

    /// The URI it is served at.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Checks the resource (APPS-01) and makes it a resource definition.
    pub(crate) fn into_resource(self) -> Result<ResourceDef, RegistrationError> {
        let refuse = |reason: String| RegistrationError::Resource { uri: self.uri.clone(), reason };
        if !self.uri.starts_with(apps::SCHEME) || self.uri.len() == apps::SCHEME.len() {
            return Err(refuse(format!("an app's URI starts with {} and names it", apps::SCHEME)));
        }
        if !apps::is_html5_document(&self.html) {
            return Err(refuse("an app's document is HTML5: it opens with <!DOCTYPE html>".into()));
        }
        if let Some(csp) = &self.ui.csp {
            csp.policy().map_err(|e| refuse(format!("_meta.ui.csp: {e}")))?;
        }
        let meta = ui_meta(&self.ui);
        let size = self.html.len() as u64;
        let html: std::sync::Arc<str> = self.html.into();
        let contents_meta = meta.clone();
        let mut def = ResourceDef::new(self.uri, self.name, move |request: ResourceRequest| {
            let mut contents = text_contents(request.uri, Some(MIME_TYPE), &*html);
            if let TextOrBlob::Text(text) = &mut contents {
                text.meta = contents_meta.clone();
            }
            async move { Ok(vec![contents]) }
        })
        .mime_type(MIME_TYPE)
        .size(size);
        if let Some(description) = self.description {
            def = def.description(description);
        }
        def.resource.meta = meta;
        Ok(def)
    }
}

/// `{"ui": …}`, or nothing when the settings are all absent.
fn ui_meta(ui: &UiResourceMeta) -> Option<modelctx_protocol::Meta> {
    let value = serde_json::to_value(ui).ok()?;
    let empty = value.as_object().is_none_or(serde_json::Map::is_empty);
    (!empty).then(|| [(apps::META_KEY.to_owned(), value)].into_iter().collect())
}

/// Edits the `_meta.ui` of `tool` (the earlier draft's `ui/resourceUri` key is replaced).
pub(crate) fn edit_ui(tool: &mut Tool, edit: impl FnOnce(&mut ToolUi)) {
    let meta = tool.meta.get_or_insert_with(Default::default);
    let mut ui = ToolUi::of(Some(meta)).unwrap_or_default();
    edit(&mut ui);
    meta.remove("ui/resourceUri");
    meta.insert(apps::META_KEY.into(), serde_json::to_value(ui).unwrap_or(Value::Null));
}

/// Refuses a tool whose UI link names no `ui://` resource among `resources`.
pub(crate) fn check_link(
    tool: &str,
    ui: Option<&ToolUi>,
    registered: impl Fn(&str) -> bool,
) -> Result<(), RegistrationError> {
    let Some(uri) = ui.and_then(|ui| ui.resource_uri.as_deref()) else { return Ok(()) };
    if uri.starts_with(apps::SCHEME) && registered(uri) {
        return Ok(());
    }
    Err(RegistrationError::Tool {
        name: tool.to_owned(),
        reason: format!(
            "_meta.ui.resourceUri {uri:?} names no app this server registers (ServerBuilder::app with a ui:// URI)"
        ),
    })
}

/// Refuses a successful result of a tool with a UI that holds no `content` (APPS-02).
pub(crate) fn check_fallback(tool: &str, result: &CallToolResult) -> Result<(), ErrorObject> {
    if result.is_error == Some(true) || !result.content.is_empty() {
        return Ok(());
    }
    tracing::error!(%tool, "a tool with a UI returned no content");
    Err(ErrorObject::internal(format!(
        "tool {tool} has a UI but returned no content: a tool with a UI must still return content \
         (text, say) for the model and for clients that show no apps"
    )))
}
