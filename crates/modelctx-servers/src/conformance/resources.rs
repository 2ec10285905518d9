//! Resources the suite reads: static text and binary, a URI template (with completion of its
//! variable), and a watched resource whose updates reach subscribers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use modelctx::protocol::types::TextOrBlob;
use modelctx::server::{
    CompletionRequest, ResourceDef, ResourceError, ResourceRequest, ResourceTemplateDef, ServerBuilder,
    blob_contents, text_contents,
};
use serde_json::json;

use super::RED_PIXEL_PNG;

/// The resource `test_trigger_resource_update` changes.
pub(super) const WATCHED_URI: &str = "test://watched-resource";

/// The revision of `test://watched-resource`: 0 until `test_trigger_resource_update` first
/// runs. Shared state of the server (`State<WatchedRevision>`); cheap to clone.
#[derive(Clone, Default)]
pub(super) struct WatchedRevision(Arc<AtomicU64>);

impl WatchedRevision {
    fn get(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// Moves to the next revision and returns it.
    pub(super) fn bump(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst) + 1
    }
}

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .state(WatchedRevision::default())
        .resource(
            ResourceDef::text(
                "test://static-text",
                "static-text",
                "This is the content of the static text resource.",
            )
            .title("Static Text Resource")
            .description("A static text resource (resources-read-text)"),
        )
        .resource(
            ResourceDef::new(
                "test://static-binary",
                "static-binary",
                |request: ResourceRequest| async move {
                    Ok(vec![blob_contents(request.uri, Some("image/png"), RED_PIXEL_PNG)])
                },
            )
            .mime_type("image/png")
            .title("Static Binary Resource")
            .description("A 1x1 red PNG (resources-read-binary)"),
        )
        .resource_template(
            ResourceTemplateDef::new("test://template/{id}/data", "template", template_data)
                .mime_type("application/json")
                .title("Resource Template")
                .description("Data for any id (resources-templates-read)")
                .complete("id", complete_id),
        )
        .resource(
            ResourceDef::new(WATCHED_URI, "watched-resource", watched)
                .mime_type("text/plain")
                .title("Watched Resource")
                .description(
                    "Changes when test_trigger_resource_update runs; subscribers hear of it \
                     (resources-subscribe, resources-unsubscribe)",
                ),
        )
}

async fn template_data(request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> {
    let Some(id) = request.variables.get("id").filter(|id| !id.is_empty()) else {
        return Err(ResourceError::NotFound);
    };
    let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
    Ok(vec![text_contents(request.uri.clone(), Some("application/json"), data.to_string())])
}

async fn complete_id(request: CompletionRequest) -> Vec<String> {
    ["1", "2", "3", "42", "123"]
        .into_iter()
        .filter(|id| id.starts_with(&request.value))
        .map(str::to_owned)
        .collect()
}

async fn watched(request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> {
    let revision = request.ctx.state::<WatchedRevision>().map_or(0, |revision| revision.get());
    let text = match revision {
        0 => "Watched resource content".to_owned(),
        n => format!("Watched resource content (revision {n})"),
    };
    Ok(vec![text_contents(request.uri, Some("text/plain"), text)])
}
