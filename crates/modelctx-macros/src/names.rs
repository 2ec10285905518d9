//! Names the server would refuse when it registers a definition, refused at compile time.

use proc_macro2::Span;

/// The longest tool name, in characters.
const MAX_TOOL_NAME: usize = 128;

/// Refuses a tool name that breaks the rule the server checks at registration (the spec's
/// TOOL-06, `check_name` in modelctx's `server/tool.rs`): 1 to 128 characters of
/// `A-Z a-z 0-9 _ - .`. The error points at `span`, where the name is written.
pub(crate) fn check_tool_name(name: &str, span: Span) -> syn::Result<()> {
    let refuse =
        |why: String| Err(syn::Error::new(span, format!("{name:?} is not a valid tool name: {why}")));
    let length = name.chars().count();
    if length == 0 || length > MAX_TOOL_NAME {
        return refuse(format!("it has {length} characters; tool names have 1 to {MAX_TOOL_NAME}"));
    }
    match name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))) {
        Some(c) => refuse(format!("it holds {c:?}; tool names use only A-Z, a-z, 0-9, '_', '-' and '.'")),
        None => Ok(()),
    }
}
