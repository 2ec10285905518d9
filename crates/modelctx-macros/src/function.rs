//! What every attribute needs from the function: checks, its name, its doc comment.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Attribute, Ident, Meta, Signature};

use crate::options::string_value;

/// Refuses what no handler can be: a non-async or generic function.
pub(crate) fn check(signature: &Signature, macro_name: &str, handler: &str) -> syn::Result<()> {
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
    Ok(())
}

/// Refuses a method outside the place that can call it; `advice` says where state goes instead.
pub(crate) fn refuse_receiver(signature: &Signature, macro_name: &str, advice: &str) -> syn::Result<()> {
    match signature.receiver() {
        Some(receiver) => Err(syn::Error::new_spanned(
            receiver,
            format!("a #[{macro_name}] function cannot take `self`; {advice}"),
        )),
        None => Ok(()),
    }
}

/// The name the function is known by: its identifier without `r#`.
pub(crate) fn fn_name(signature: &Signature) -> String {
    signature.ident.unraw().to_string()
}

/// The generated constructor's name: `<function>_<suffix>`.
pub(crate) fn constructor(signature: &Signature, suffix: &str) -> Ident {
    Ident::new(&format!("{}_{suffix}", fn_name(signature)), Span::call_site())
}

/// The `///` comment in `attrs`, lines joined, surrounding blank lines removed.
pub(crate) fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
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
