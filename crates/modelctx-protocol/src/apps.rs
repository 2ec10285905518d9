//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): the wire shapes a
//! server, client and host share.
//!
//! A UI is a `ui://` resource of MIME type [`MIME_TYPE`] holding an HTML5 document; a tool
//! links to it in `_meta.ui.resourceUri` ([`ToolUi`]) and says who may call it
//! (`_meta.ui.visibility`: the model, the app, or both). The resource's `_meta.ui`
//! ([`UiResourceMeta`]) names the origins the app may reach ([`UiCsp`]), from which a host
//! builds the Content-Security-Policy it renders the app under ([`UiCsp::policy`]).
//!
//! ```
//! use modelctx_protocol::apps::{ToolUi, UiCsp, Visibility};
//! use serde_json::json;
//!
//! let meta = json!({"ui": {"resourceUri": "ui://clock/app.html", "visibility": ["app"]}});
//! let ui = ToolUi::of(meta.as_object()).unwrap();
//! assert_eq!(ui.resource_uri.as_deref(), Some("ui://clock/app.html"));
//! assert!(!ui.visible_to(Visibility::Model));
//!
//! let csp = UiCsp { connect_domains: vec!["https://api.example.com".into()], ..UiCsp::default() };
//! assert!(csp.policy().unwrap().contains("connect-src 'self' https://api.example.com"));
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::ClientCapabilities;
use crate::{JsonObject, Meta};

/// The extension's identifier in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML document (APPS-01).
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme every UI resource uses (APPS-01).
pub const SCHEME: &str = "ui://";

/// The key under `_meta` that carries a tool's or resource's UI settings.
pub const META_KEY: &str = "ui";

/// The key an earlier draft used for a tool's UI link (`_meta["ui/resourceUri"]`); read,
/// never written.
const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// Who may call a tool that has a UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model: the host lists the tool to it.
    Model,
    /// The app: its UI may call the tool through the host.
    App,
}

/// A tool's `_meta.ui`: the UI it shows and who may call it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` resource rendered for the tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; absent means the model and the app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// The UI settings in a tool's `_meta`, if it has any (the earlier draft's
    /// `ui/resourceUri` key is read too). Malformed settings count as none.
    pub fn of(meta: Option<&Meta>) -> Option<Self> {
        let meta = meta?;
        if let Some(ui) = meta.get(META_KEY) {
            return serde_json::from_value(ui.clone()).ok();
        }
        let uri = meta.get(LEGACY_RESOURCE_URI_KEY)?.as_str()?;
        Some(Self { resource_uri: Some(uri.to_owned()), visibility: None })
    }

    /// Whether `who` may call the tool.
    pub fn visible_to(&self, who: Visibility) -> bool {
        self.visibility.as_ref().is_none_or(|list| list.contains(&who))
    }
}

/// A UI resource's `_meta.ui`: how a host renders it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// The origins the app may reach; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// Browser permissions the app asks for (`camera`, `microphone`, `geolocation`,
    /// `clipboardWrite`), each an empty object when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<JsonObject>,
    /// A dedicated origin for the app, when the host supports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the app would rather be drawn inside a border.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins an app may reach (`_meta.ui.csp`); everything else is denied.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiCsp {
    /// Origins for `fetch`, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Origins for nested frames (`frame-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Origins allowed as the document's base URI (`base-uri`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

/// An origin in a [`UiCsp`] that could not be written into a policy safely.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidOrigin(pub String);

impl fmt::Display for InvalidOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not an origin a Content-Security-Policy can carry: give https://host[:port] \
             (a leading *. is allowed), with no spaces, quotes, commas or semicolons",
            self.0
        )
    }
}

impl std::error::Error for InvalidOrigin {}

impl UiCsp {
    /// The Content-Security-Policy a host renders the app under: deny by default, the app's
    /// own inline scripts and styles, `data:` images and media, and exactly the declared
    /// origins. An origin that could inject a directive (a `;`, a space, a quote, a scheme
    /// other than `https`, or `http` on a loopback host) is refused rather than written.
    pub fn policy(&self) -> Result<String, InvalidOrigin> {
        let origins = |list: &[String]| -> Result<String, InvalidOrigin> {
            list.iter().try_fold(String::new(), |mut out, origin| {
                check_origin(origin)?;
                out.push(' ');
                out.push_str(origin);
                Ok(out)
            })
        };
        let resources = origins(&self.resource_domains)?;
        let connect = origins(&self.connect_domains)?;
        let frames = origins(&self.frame_domains)?;
        let base = origins(&self.base_uri_domains)?;
        let or_none = |list: &str| if list.is_empty() { " 'none'".to_owned() } else { list.to_owned() };
        Ok([
            "default-src 'none'".to_owned(),
            format!("script-src 'self' 'unsafe-inline'{resources}"),
            format!("style-src 'self' 'unsafe-inline'{resources}"),
            format!("img-src 'self' data:{resources}"),
            format!("font-src 'self'{resources}"),
            format!("media-src 'self' data:{resources}"),
            format!("connect-src 'self'{connect}"),
            format!("frame-src{}", or_none(&frames)),
            format!("base-uri 'self'{base}"),
            "object-src 'none'".to_owned(),
        ]
        .join("; "))
    }
}

/// Refuses an origin that is not `https://host[:port]` (or `http://` on a loopback host),
/// or that holds a character a policy gives meaning to.
fn check_origin(origin: &str) -> Result<(), InvalidOrigin> {
    let refuse = || Err(InvalidOrigin(origin.to_owned()));
    if origin.chars().any(|c| c.is_whitespace() || matches!(c, ';' | ',' | '\'' | '"')) {
        return refuse();
    }
    let host = if let Some(rest) = origin.strip_prefix("https://") {
        rest
    } else if let Some(rest) = origin.strip_prefix("http://") {
        let name =
            if rest.starts_with('[') { rest.split_inclusive(']').next() } else { rest.split(':').next() };
        if !matches!(name, Some("localhost" | "127.0.0.1" | "[::1]")) {
            return refuse();
        }
        rest
    } else {
        return refuse();
    };
    let name = host.strip_prefix("*.").unwrap_or(host);
    let valid = !name.is_empty()
        && !name.contains('*')
        && !name.contains('/')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    if valid { Ok(()) } else { refuse() }
}

/// Whether a client said it renders apps: it declared the extension with
/// [`MIME_TYPE`] among its `mimeTypes` (APPS-02).
pub fn client_renders_apps(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(EXTENSION_ID))
        .and_then(|settings| settings.get("mimeTypes"))
        .and_then(serde_json::Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// The `capabilities.extensions` settings of a client that renders apps.
pub fn client_settings() -> JsonObject {
    let mut settings = JsonObject::new();
    settings.insert("mimeTypes".into(), serde_json::json!([MIME_TYPE]));
    settings
}

/// Whether `text` reads as an HTML5 document: it opens (after white space and a byte-order
/// mark) with the HTML5 doctype, `<!DOCTYPE html>` in any case (APPS-01 asks for valid
/// HTML5; the doctype is what makes a browser parse it as such rather than in quirks mode).
pub fn is_html5_document(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let doctype = "<!doctype html";
    text.get(..doctype.len()).is_some_and(|head| head.eq_ignore_ascii_case(doctype))
        && text[doctype.len()..].trim_start().starts_with('>')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visibility_defaults_to_both() {
        let ui = ToolUi::of(json!({"ui": {"resourceUri": "ui://a/b"}}).as_object()).unwrap();
        assert!(ui.visible_to(Visibility::Model) && ui.visible_to(Visibility::App));
        let legacy = ToolUi::of(json!({"ui/resourceUri": "ui://a/b"}).as_object()).unwrap();
        assert_eq!(legacy.resource_uri.as_deref(), Some("ui://a/b"));
        assert!(ToolUi::of(json!({"other": 1}).as_object()).is_none());
    }

    #[test]
    fn the_policy_denies_by_default_and_refuses_injection() {
        let policy = UiCsp::default().policy().unwrap();
        assert!(policy.starts_with("default-src 'none'; "));
        assert!(policy.contains("connect-src 'self';") && policy.contains("frame-src 'none'"));
        let csp = UiCsp { resource_domains: vec!["https://*.cdn.example".into()], ..UiCsp::default() };
        assert!(csp.policy().unwrap().contains("img-src 'self' data: https://*.cdn.example"));
        for bad in [
            "https://a.example; script-src *",
            "javascript:alert(1)",
            "http://evil.example",
            "*",
            "https://a/b",
        ] {
            let csp = UiCsp { connect_domains: vec![bad.into()], ..UiCsp::default() };
            assert!(csp.policy().is_err(), "{bad} accepted");
        }
        let local = UiCsp { connect_domains: vec!["http://localhost:8080".into()], ..UiCsp::default() };
        assert!(local.policy().is_ok());
    }

    #[test]
    fn html5_means_the_doctype() {
        assert!(is_html5_document("\u{feff}\n<!DOCTYPE html>\n<html></html>"));
        assert!(is_html5_document("<!doctype HTML ><p>hi"));
        assert!(!is_html5_document("<html></html>"));
        assert!(!is_html5_document("<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0\">"));
    }

    #[test]
    fn a_client_renders_apps_only_with_the_mime_type() {
        let mut caps = ClientCapabilities::default();
        assert!(!client_renders_apps(&caps));
        caps.extensions = Some([(EXTENSION_ID.to_owned(), JsonObject::new())].into());
        assert!(!client_renders_apps(&caps));
        caps.extensions = Some([(EXTENSION_ID.to_owned(), client_settings())].into());
        assert!(client_renders_apps(&caps));
    }
}
