//! Definition tags (experimental): the transports working group's draft "Definition Tags"
//! (`proposals/XXXX-definition-tags.md` at `65a36f9e`, 2026-09-04). A server puts an opaque
//! `tag` on its list results and on `server/discover`, covering the whole collection the caller
//! sees; a client sends back the tags it works from in `_meta`
//! (`io.modelcontextprotocol/knownTags`, keyed by the method that produced each), and the
//! server refuses a call built on a stale relevant tag, or names the stale ones in the result's
//! `_meta` (`io.modelcontextprotocol/staleTags`). The draft allocates no error code and needs
//! no capability: the code and the identifier here are this crate's choices.

use serde_json::Value;

use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::{JsonObject, Method};

/// The identifier a server that tags its definitions declares in `capabilities.extensions`
/// (the draft needs none; declaring it tells a client its known tags are checked).
pub const EXTENSION_ID: &str = "io.github.modelctx/definition-tags";

/// The request `_meta` key of the tags a client works from.
pub const KNOWN_TAGS: &str = "io.modelcontextprotocol/knownTags";

/// The result `_meta` key (and the error `data` member, as `staleTags`) naming the methods
/// whose tags did not match.
pub const STALE_TAGS: &str = "io.modelcontextprotocol/staleTags";

/// The error code of a request refused for a stale relevant tag (the draft allocates none): an
/// application code, outside the range JSON-RPC reserves, in which MCP allocates its own.
pub const STALE_TAGS_CODE: i64 = -31040;

/// The methods whose results carry a tag, with the member that holds a list's items and the
/// member that names each item (`None` for `server/discover`).
pub const TAGGED: [(Method, Option<(&str, &str)>); 5] = [
    (Method::Discover, None),
    (Method::ListTools, Some(("tools", "name"))),
    (Method::ListPrompts, Some(("prompts", "name"))),
    (Method::ListResources, Some(("resources", "uri"))),
    (Method::ListResourceTemplates, Some(("resourceTemplates", "uriTemplate"))),
];

/// The tags relevant to `operation`: a stale one refuses it (`server/discover`'s always).
pub fn relevant(operation: &Method) -> &'static [Method] {
    match operation {
        Method::CallTool => &[Method::Discover, Method::ListTools],
        Method::GetPrompt => &[Method::Discover, Method::ListPrompts],
        Method::ReadResource => &[Method::Discover, Method::ListResources, Method::ListResourceTemplates],
        _ => &[Method::Discover],
    }
}

/// Whether requests of `operation` are checked against their known tags.
pub fn is_checked(operation: &Method) -> bool {
    matches!(operation, Method::CallTool | Method::GetPrompt | Method::ReadResource)
}

/// The known tags of a request's `_meta`, for the methods that produce tags; any other key,
/// and any value that is not a string, is ignored (the draft: hints, not preconditions).
pub fn known_tags(meta: Option<&JsonObject>) -> Vec<(Method, String)> {
    let Some(Value::Object(known)) = meta.and_then(|meta| meta.get(KNOWN_TAGS)) else { return Vec::new() };
    TAGGED
        .iter()
        .filter_map(|(method, _)| {
            let tag = known.get(method.as_str())?.as_str()?;
            Some((method.clone(), tag.to_owned()))
        })
        .collect()
}

/// The refusal of a request whose relevant `stale` tags did not match.
pub fn stale_error(stale: &[Method]) -> ErrorObject {
    let names: Vec<&str> = stale.iter().map(Method::as_str).collect();
    ErrorObject::new(
        ErrorCode(STALE_TAGS_CODE),
        format!(
            "the definitions changed since the client listed them ({}): list again, then retry",
            names.join(", ")
        ),
    )
    .with_data(serde_json::json!({ "staleTags": names }))
}

/// The stale methods an error names, if it is a stale-tags refusal.
pub fn stale_in_error(error: &ErrorObject) -> Option<Vec<Method>> {
    if error.code.0 != STALE_TAGS_CODE {
        return None;
    }
    let names = error.data.as_ref()?.get("staleTags")?.as_array()?;
    Some(names.iter().filter_map(Value::as_str).map(Method::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn known_tags_keep_the_tagged_methods_strings_only() {
        let meta = json!({KNOWN_TAGS: {"tools/list": "sha256:a", "prompts/list": 7, "x/list": "b",
                                       "server/discover": "sha256:d"}});
        let known = known_tags(meta.as_object());
        assert_eq!(known, [(Method::Discover, "sha256:d".into()), (Method::ListTools, "sha256:a".into())]);
        assert!(known_tags(None).is_empty());
    }

    #[test]
    fn a_stale_prompt_list_does_not_concern_a_tool_call() {
        assert!(!relevant(&Method::CallTool).contains(&Method::ListPrompts));
        assert!(relevant(&Method::GetPrompt).contains(&Method::Discover));
        let error = stale_error(&[Method::ListTools]);
        assert_eq!(stale_in_error(&error), Some(vec![Method::ListTools]));
        assert_eq!(error.data, Some(json!({"staleTags": ["tools/list"]})));
    }
}
