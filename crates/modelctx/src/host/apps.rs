//! MCP Apps in the host (APPS-03): the model sees only the tools it may call, an app calls
//! only the tools its server lets apps call, and an app's document comes with the
//! Content-Security-Policy it must be rendered under.
//!
//! The host renders nothing itself: an embedder that shows apps (a desktop application, a
//! web page) declares so with [`HostOptions::show_apps`](super::HostOptions::show_apps),
//! fetches an app with [`Host::app`], renders [`HostApp::html`] in a sandboxed frame under
//! [`HostApp::policy`], and sends the app's tool calls through [`Host::call_from_app`].

use modelctx_protocol::apps::{self, ToolUi, UiResourceMeta, Visibility};
use modelctx_protocol::model::{CallToolResult, Tool};
use modelctx_protocol::types::TextOrBlob;
use serde_json::Value;

use super::{Host, HostError};
use crate::client::Progress;

/// An app, read from its server, ready to render.
#[derive(Clone, Debug, PartialEq)]
pub struct HostApp {
    /// The server's name in the configuration: the app's calls go there.
    pub server: String,
    /// Its `ui://` URI.
    pub uri: String,
    /// The HTML5 document.
    pub html: String,
    /// Its `_meta.ui` (the contents' own, else the listing's).
    pub meta: UiResourceMeta,
    /// The Content-Security-Policy to render it under, built from `meta.csp`: nothing but
    /// the origins it declares.
    pub policy: String,
}

/// Whether the model may see and call `tool` (its `_meta.ui.visibility` names the model, or
/// it has none).
pub(crate) fn for_model(tool: &Tool) -> bool {
    ToolUi::of(tool.meta.as_ref()).is_none_or(|ui| ui.visible_to(Visibility::Model))
}

impl Host {
    /// The app the tool `name` links to (`_meta.ui.resourceUri`), read from the tool's server
    /// with `resources/read`: it must be `ui://`, of the apps MIME type, and text; its
    /// policy is built from its `_meta.ui.csp`, and an origin that could widen the policy
    /// is an error rather than left out.
    pub async fn app(&self, name: &str) -> Result<HostApp, HostError> {
        let tool = self.shared.registry().get(name).ok_or_else(|| HostError::UnknownTool(name.into()))?;
        let server = tool.server.clone();
        let refuse =
            |uri: &str, reason: String| HostError::App { server: server.clone(), uri: uri.into(), reason };
        let ui = ToolUi::of(tool.tool.meta.as_ref());
        let Some(uri) = ui.and_then(|ui| ui.resource_uri) else {
            return Err(refuse("", format!("tool {name:?} links to no app")));
        };
        if !uri.starts_with(apps::SCHEME) {
            return Err(refuse(&uri, format!("an app's URI starts with {}", apps::SCHEME)));
        }
        let client = self.shared.client(&server)?;
        let contents = client.read_resource(&uri).await.map_err(|error| refuse(&uri, error.to_string()))?;
        let Some(TextOrBlob::Text(text)) = contents.into_iter().next() else {
            return Err(refuse(&uri, "the server sent no text for it".into()));
        };
        if text.mime_type.as_deref() != Some(apps::MIME_TYPE) {
            return Err(refuse(
                &uri,
                format!("its MIME type is {:?}, not {}", text.mime_type, apps::MIME_TYPE),
            ));
        }
        let meta: UiResourceMeta = text
            .meta
            .as_ref()
            .and_then(|meta| meta.get(apps::META_KEY))
            .map(|ui| serde_json::from_value(ui.clone()).map_err(|e| refuse(&uri, format!("_meta.ui: {e}"))))
            .transpose()?
            .unwrap_or_default();
        let policy =
            meta.csp.clone().unwrap_or_default().policy().map_err(|e| refuse(&uri, e.to_string()))?;
        Ok(HostApp { server, uri, html: text.text, meta, policy })
    }

    /// Calls `tool` (its own name on `server`) for an app that `server` showed. Refused,
    /// unsent, unless the tool's `_meta.ui.visibility` lets apps call it; the approval hook
    /// is asked as for the model's calls.
    pub async fn call_from_app(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<CallToolResult, HostError> {
        let entry = self
            .shared
            .registry()
            .find(server, tool)
            .ok_or_else(|| HostError::UnknownTool(format!("{tool} on {server}")))?;
        let ui = ToolUi::of(entry.tool.meta.as_ref()).unwrap_or_default();
        if !ui.visible_to(Visibility::App) {
            return Err(HostError::Denied {
                server: server.into(),
                tool: tool.into(),
                reason: "its _meta.ui.visibility does not let apps call it".into(),
            });
        }
        self.call_entry(&entry, arguments, None::<fn(Progress)>).await
    }
}
