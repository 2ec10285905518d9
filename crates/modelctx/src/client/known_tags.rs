//! Definition tags, the client's side (experimental, `modelctx_protocol::definition_tags`,
//! with `ClientOptions::known_tags`): the tag of each list and of `server/discover` as last
//! fetched, sent back as `io.modelcontextprotocol/knownTags` with every `tools/call`,
//! `prompts/get` and `resources/read`; a tag the server says is stale — in a result's `_meta` or
//! in a refusal — is forgotten with the cached pages of its list, so the next listing asks the
//! server again.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use modelctx_protocol::definition_tags::{KNOWN_TAGS, STALE_TAGS, TAGGED, is_checked};
use modelctx_protocol::{JsonObject, Method};
use serde_json::Value;

use super::cache::Cache;
use super::wire::request_meta;

/// The tags the client works from, by the method that produced each.
#[derive(Default)]
pub(super) struct KnownTags(Mutex<BTreeMap<String, String>>);

impl KnownTags {
    fn tags(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the tag of `result`, when `method` produces one.
    pub(super) fn record(&self, method: &Method, result: &JsonObject) {
        if let (true, Some(Value::String(tag))) = (TAGGED.iter().any(|(m, _)| m == method), result.get("tag"))
        {
            self.tags().insert(method.as_str().to_owned(), tag.clone());
        }
    }

    /// Adds the known tags to `params` of a request of `method` that the server checks.
    pub(super) fn attach(&self, method: &Method, params: &mut JsonObject) {
        let tags = self.tags();
        if !is_checked(method) || tags.is_empty() {
            return;
        }
        let known: JsonObject = tags.iter().map(|(m, tag)| (m.clone(), Value::String(tag.clone()))).collect();
        request_meta(params).insert(KNOWN_TAGS.into(), Value::Object(known));
    }

    /// Forgets the tags of `stale` and the cached pages of their lists.
    pub(super) fn forget(&self, stale: &[Method], cache: &Cache) {
        let mut tags = self.tags();
        for method in stale {
            tags.remove(method.as_str());
            cache.forget_method(method);
        }
    }

    /// The methods a result's `_meta` names as stale.
    pub(super) fn stale_in(result: &JsonObject) -> Vec<Method> {
        let named = result.get("_meta").and_then(|meta| meta.get(STALE_TAGS)).and_then(Value::as_array);
        named.into_iter().flatten().filter_map(Value::as_str).map(Method::from).collect()
    }
}
