//! What every attribute needs from the function: checks, its name, its doc comment.

use proc_macro2::Span;
use syn::{Ident, ItemFn, Meta};

use crate::options::string_value;

/// Refuses what no handler can be: a non-async, generic, or method function.
pub(crate) fn check(function: &ItemFn, macro_name: &str, handler: &str) -> syn::Result<()> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            signature.fn_token,
            format!("#[{macro_name}] goes on an `async fn`: {handler}"),
        ));
    }
    if !signature.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &signature.generics,
            format!("a #[{macro_name}] function cannot be generic"),
        ));
    }
    if let Some(receiver) = signature.receiver() {
        return Err(syn::Error::new_spanned(
            receiver,
            format!(
                "a #[{macro_name}] function cannot take `self`; share state with `State<T>` or captured values"
            ),
        ));
    }
    Ok(())
}

/// The generated constructor's name: `<function>_<suffix>`.
pub(crate) fn constructor(function: &ItemFn, suffix: &str) -> Ident {
    Ident::new(&format!("{}_{suffix}", function.sig.ident), Span::call_site())
}

/// The function's `///` comment, lines joined, surrounding blank lines removed.
pub(crate) fn doc_comment(function: &ItemFn) -> Option<String> {
    let lines: Vec<String> = function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => string_value(&pair.value, "doc").ok(),
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).trim_end().to_owned())
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
