//! MCP Apps in the page: a tool's `ui://` resource read, checked (an HTML5 document of the
//! apps' MIME type, its `_meta.ui.csp` origins writable into a policy) and kept under a
//! random one-time id; the page frames it from `/app-view/{id}`, sandboxed (scripts only, an
//! opaque origin), under the Content-Security-Policy its `_meta.ui.csp` allows and nothing
//! more. The page's bridge (`assets/apps.js`) speaks the Apps dialect of JSON-RPC with it over
//! `postMessage`. At most [`MAX_VIEWS`] documents wait to be framed; the oldest goes first.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use modelctx::protocol::apps::{self, MIME_TYPE, UiResourceMeta};
use modelctx::protocol::types::TextOrBlob;
use serde::Deserialize;
use serde_json::json;

use super::Inspector;
use super::api::{Served, refused, with_client};
use crate::run_token::{random_token, same};

/// App documents read and not yet framed, at most.
pub const MAX_VIEWS: usize = 8;

/// An app's document, ready to frame.
struct View {
    id: String,
    html: String,
    policy: String,
}

/// The documents waiting to be framed, oldest first.
#[derive(Default)]
pub struct Views {
    waiting: Mutex<VecDeque<View>>,
}

impl Views {
    fn keep(&self, view: View) {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if waiting.len() >= MAX_VIEWS {
            waiting.pop_front();
        }
        waiting.push_back(view);
    }

    fn take(&self, id: &str) -> Option<View> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let at = waiting.iter().position(|view| same(&view.id, id))?;
        waiting.remove(at)
    }
}

/// What `POST …/apps/open` takes: the app's `ui://` URI.
#[derive(Deserialize)]
pub struct AppForm {
    uri: String,
}

/// The app's document and the policy it is framed under, from the contents `resources/read`
/// gave for `uri`; why not when they are no app.
fn app_document(uri: &str, contents: Vec<TextOrBlob>) -> Result<(String, String), String> {
    if !uri.starts_with(apps::SCHEME) {
        return Err(format!("{uri} is not a ui:// resource"));
    }
    let Some(TextOrBlob::Text(text)) = contents.into_iter().next() else {
        return Err(format!("{uri} has no text contents: an app is an HTML document"));
    };
    let mime = text.mime_type.as_deref().unwrap_or("none");
    if !mime.replace(' ', "").eq_ignore_ascii_case(MIME_TYPE) {
        return Err(format!("{uri} is {mime}, not {MIME_TYPE}"));
    }
    if !apps::is_html5_document(&text.text) {
        return Err(format!("{uri} is not an HTML5 document (no <!DOCTYPE html>)"));
    }
    let ui = text
        .meta
        .as_ref()
        .and_then(|meta| meta.get(apps::META_KEY))
        .map(|ui| serde_json::from_value::<UiResourceMeta>(ui.clone()))
        .transpose()
        .map_err(|e| format!("{uri}: its _meta.ui does not read: {e}"))?
        .unwrap_or_default();
    let policy = ui.csp.unwrap_or_default().policy().map_err(|e| format!("{uri}: _meta.ui.csp: {e}"))?;
    Ok((text.text, policy))
}

/// `POST …/apps/open`: reads the app and keeps it to frame (`{"result": {"view": PATH,
/// "policy": …}}`); `{"error": …}` when it is no app.
pub async fn open(
    State(inspector): State<Arc<Inspector>>,
    Served(session): Served,
    Json(form): Json<AppForm>,
) -> Response {
    with_client(&session, |client| async move {
        let read = match client.read_resource(&form.uri).await {
            Ok(contents) => app_document(&form.uri, contents),
            Err(error) => Err(error.to_string()),
        };
        let (html, policy) = match read {
            Ok(document) => document,
            Err(why) => return Json(json!({"error": why})).into_response(),
        };
        let id = match random_token() {
            Ok(id) => id,
            Err(e) => return refused(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        };
        let view = format!("/app-view/{id}");
        inspector.views.keep(View { id, html, policy: policy.clone() });
        Json(json!({"result": {"view": view, "policy": policy}})).into_response()
    })
    .await
}

/// The path's view id.
#[derive(Deserialize)]
pub struct ViewPath {
    id: String,
}

/// `GET /app-view/{id}`: the app's document, once, sandboxed by its own policy (scripts in an
/// opaque origin, framed by this page only); `404` for an unknown or used id.
pub async fn view(
    State(inspector): State<Arc<Inspector>>,
    Path(ViewPath { id }): Path<ViewPath>,
) -> Response {
    let Some(view) = inspector.views.take(&id) else {
        return (StatusCode::NOT_FOUND, "no such app view: each is shown once\n").into_response();
    };
    let policy = format!("{}; sandbox allow-scripts; frame-ancestors 'self'", view.policy);
    let Ok(policy) = HeaderValue::from_str(&policy) else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "the app's policy is no header value\n").into_response();
    };
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], view.html).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelctx::protocol::types::TextResourceContents;

    fn text(mime: &str, body: &str, meta: serde_json::Value) -> Vec<TextOrBlob> {
        vec![TextOrBlob::Text(TextResourceContents {
            uri: "ui://a/app.html".into(),
            mime_type: Some(mime.into()),
            text: body.into(),
            meta: meta.as_object().cloned(),
        })]
    }

    #[test]
    fn only_an_html5_app_with_a_writable_policy_is_framed() {
        let page = "<!DOCTYPE html><p>hi</p>";
        let csp = json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}});
        let (html, policy) = app_document("ui://a/app.html", text(MIME_TYPE, page, csp)).unwrap();
        assert_eq!(html, page);
        assert!(policy.contains("connect-src 'self' https://api.example.com"), "{policy}");
        let hostile = json!({"ui": {"csp": {"connectDomains": ["https://x; script-src *"]}}});
        for (uri, contents) in [
            ("https://a/app.html", text(MIME_TYPE, page, json!({}))),
            ("ui://a/app.html", text("text/html", page, json!({}))),
            ("ui://a/app.html", text(MIME_TYPE, "<p>no doctype</p>", json!({}))),
            ("ui://a/app.html", text(MIME_TYPE, page, hostile)),
        ] {
            assert!(app_document(uri, contents).is_err(), "{uri}");
        }
    }

    #[test]
    fn a_view_is_given_once_and_the_oldest_goes_first() {
        let views = Views::default();
        for n in 0..=MAX_VIEWS {
            views.keep(View { id: format!("{n:02}"), html: String::new(), policy: String::new() });
        }
        assert!(views.take("00").is_none(), "the oldest went when a ninth came");
        assert!(views.take("01").is_some() && views.take("01").is_none());
    }
}
