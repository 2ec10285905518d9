//! Definition tags, the server's side (experimental, `modelctx_protocol::definition_tags`): a
//! layer that puts on each 2026-07-28 list result and `server/discover` the `tag` of the whole
//! collection the caller sees — taken after every layer inside it, so a gateway's policies
//! filter what it covers — and checks the known tags a `tools/call`, `prompts/get` or
//! `resources/read` sends: a stale relevant one refuses the request before it runs, a stale
//! other one is named in the result's `_meta`. A tag is `sha256:` and the hex digest of the
//! collection's items, sorted by name (or URI), as canonical JSON (keys sorted, no spaces).
//! The server keeps no old definitions, so it never honours an old tag.

use futures::future::BoxFuture;
use modelctx_protocol::definition_tags::{STALE_TAGS, TAGGED, is_checked, known_tags, relevant, stale_error};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject};
use modelctx_protocol::{Era, JsonObject, Method};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower::{Layer, ServiceExt};

use super::middleware::{Around, AroundService, McpRequest, McpService};
use super::{Answer, RequestContext};

/// The most pages read to tag one collection; past it the listing is refused as too large to
/// tag (a server of more than `page_size` × this many definitions should not turn tags on).
pub const MAX_TAGGED_PAGES: usize = 1000;

/// The layer ([`super::ServerBuilder::definition_tags`] adds it).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefinitionTags;

impl Layer<McpService> for DefinitionTags {
    type Service = AroundService<Self>;

    fn layer(&self, inner: McpService) -> AroundService<Self> {
        AroundService::new(*self, inner)
    }
}

impl Around for DefinitionTags {
    fn around(
        &self,
        inner: McpService,
        request: McpRequest,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        Box::pin(tag(inner, request))
    }
}

/// What the layer does with one request.
async fn tag(inner: McpService, request: McpRequest) -> Result<Answer, ErrorObject> {
    let method = request.method.clone();
    let request_meta = request.params.as_ref().and_then(|params| params.get("_meta"));
    let known =
        if is_checked(&method) { known_tags(request_meta.and_then(Value::as_object)) } else { Vec::new() };
    let tagged = items_of(&method).is_some() || method == Method::Discover;
    // Everything else, and a checked request that sent no tags, passes untouched.
    if request.ctx.era() != Era::Modern || (!tagged && known.is_empty()) {
        return inner.oneshot(request).await;
    }
    let meta = request_meta.cloned();
    let ctx = request.ctx.clone();
    if let Some(items) = items_of(&method) {
        let first_page = request.params.as_ref().is_none_or(|p| p.get("cursor").is_none());
        let mut result = inner.clone().oneshot(request).await?.into_object();
        let whole = first_page && result.get("nextCursor").is_none();
        let tag = match (whole, result.get(items.0)) {
            (true, Some(Value::Array(listed))) => digest(listed, items.1),
            _ => collection_tag(&inner, &method, &ctx, meta.as_ref()).await?,
        };
        result.insert("tag".into(), Value::String(tag));
        return Ok(Answer::from(result));
    }
    if method == Method::Discover {
        let mut result = inner.oneshot(request).await?.into_object();
        result.insert("tag".into(), Value::String(discover_tag(&result)));
        return Ok(Answer::from(result));
    }
    let mut stale = Vec::new();
    for (tagged, sent) in known {
        if current_tag(&inner, &tagged, &ctx, meta.as_ref()).await? != sent {
            stale.push(tagged);
        }
    }
    let refusing: Vec<Method> = stale.iter().filter(|m| relevant(&method).contains(m)).cloned().collect();
    if !refusing.is_empty() {
        return Err(stale_error(&refusing));
    }
    let answer = inner.oneshot(request).await?;
    if stale.is_empty() {
        return Ok(answer);
    }
    let mut result = answer.into_object();
    let names: Vec<&str> = stale.iter().map(Method::as_str).collect();
    match result.entry("_meta").or_insert_with(|| json!({})) {
        Value::Object(meta) => {
            meta.insert(STALE_TAGS.into(), json!(names));
        }
        other => *other = json!({ STALE_TAGS: names }),
    }
    Ok(Answer::from(result))
}

/// The member holding a list method's items and the one naming each item.
fn items_of(method: &Method) -> Option<(&'static str, &'static str)> {
    TAGGED.iter().find(|(tagged, _)| tagged == method).and_then(|(_, items)| *items)
}

/// The tag `tagged` has now for the caller of `ctx`.
async fn current_tag(
    inner: &McpService,
    tagged: &Method,
    ctx: &RequestContext,
    meta: Option<&Value>,
) -> Result<String, ErrorObject> {
    if *tagged == Method::Discover {
        let request = McpRequest { method: Method::Discover, params: params(meta, None), ctx: ctx.clone() };
        return Ok(discover_tag(&inner.clone().oneshot(request).await?.into_object()));
    }
    collection_tag(inner, tagged, ctx, meta).await
}

/// The tag of list `method`'s whole collection, every page read; an empty collection (a
/// server that offers none answers `-32601`) has the tag of no items.
async fn collection_tag(
    inner: &McpService,
    method: &Method,
    ctx: &RequestContext,
    meta: Option<&Value>,
) -> Result<String, ErrorObject> {
    let (items, key) = items_of(method).expect("a list method");
    let mut all = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_TAGGED_PAGES {
        let request =
            McpRequest { method: method.clone(), params: params(meta, cursor.take()), ctx: ctx.clone() };
        let mut page = match inner.clone().oneshot(request).await {
            Ok(answer) => answer.into_object(),
            Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND => return Ok(digest(&[], key)),
            Err(error) => return Err(error),
        };
        if let Some(Value::Array(listed)) = page.remove(items) {
            all.extend(listed);
        }
        match page.remove("nextCursor") {
            Some(Value::String(next)) => cursor = Some(next),
            _ => return Ok(digest(&all, key)),
        }
    }
    Err(ErrorObject::internal(format!(
        "{method} has more than {MAX_TAGGED_PAGES} pages: too many to tag; turn definition tags off"
    )))
}

/// The params of a listing made to compute a tag: the request's `_meta` and a cursor.
fn params(meta: Option<&Value>, cursor: Option<String>) -> Option<JsonObject> {
    let mut params = JsonObject::new();
    if let Some(meta) = meta {
        params.insert("_meta".into(), meta.clone());
    }
    if let Some(cursor) = cursor {
        params.insert("cursor".into(), Value::String(cursor));
    }
    Some(params)
}

/// The tag of a `server/discover` result: its `instructions`, `capabilities` and
/// `supportedVersions` together (an absent `instructions` differs from an empty one).
fn discover_tag(result: &JsonObject) -> String {
    let covered = json!({
        "instructions": result.get("instructions"),
        "capabilities": result.get("capabilities"),
        "supportedVersions": result.get("supportedVersions"),
    });
    hash(&covered)
}

/// The tag of `items`, sorted by their `key` member.
fn digest(items: &[Value], key: &str) -> String {
    let mut sorted: Vec<&Value> = items.iter().collect();
    sorted.sort_by(|a, b| a[key].as_str().cmp(&b[key].as_str()));
    hash(&sorted)
}

/// `sha256:` and the hex digest of `value` as canonical JSON.
fn hash(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_vec(value).expect("JSON serialises");
    let digest = Sha256::digest(&text);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
