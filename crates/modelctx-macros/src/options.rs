//! Reading `key = "text"`, `flag` and `flag = false` options.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta, MetaNameValue, Token};

/// A string literal option's value.
pub(crate) fn string_value(value: &Expr, key: &str) -> syn::Result<String> {
    match value {
        Expr::Lit(ExprLit { lit: Lit::Str(text), .. }) => Ok(text.value()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal, as in {key} = \"...\""),
        )),
    }
}

/// The option's name (`read_only` in `read_only = false`).
pub(crate) fn key(option: &Meta) -> String {
    option.path().get_ident().map(ToString::to_string).unwrap_or_default()
}

/// `key = "text"`.
pub(crate) fn text(option: &Meta) -> syn::Result<String> {
    spanned_text(option).map(|(text, _)| text)
}

/// `key = "text"`, and where the text is written.
pub(crate) fn spanned_text(option: &Meta) -> syn::Result<(String, Span)> {
    match option {
        Meta::NameValue(MetaNameValue { value, .. }) => {
            Ok((string_value(value, &key(option))?, value.span()))
        }
        other => Err(syn::Error::new_spanned(other, format!("write {} = \"...\"", key(option)))),
    }
}

/// `flag` (true) or `flag = true|false`.
pub(crate) fn flag(option: &Meta) -> syn::Result<bool> {
    let key = key(option);
    match option {
        Meta::Path(_) => Ok(true),
        Meta::NameValue(MetaNameValue { value: Expr::Lit(ExprLit { lit: Lit::Bool(flag), .. }), .. }) => {
            Ok(flag.value)
        }
        other => Err(syn::Error::new_spanned(other, format!("write `{key}` or `{key} = false`"))),
    }
}

/// The error for an option the macro does not know.
pub(crate) fn unknown(macro_name: &str, option: &Meta, known: &str) -> syn::Error {
    syn::Error::new_spanned(
        option.path(),
        format!("unknown #[{macro_name}] option `{}`; the options are {known}", key(option)),
    )
}

/// The options inside `argument(...)`.
pub(crate) fn nested(option: &Meta) -> syn::Result<Punctuated<Meta, Token![,]>> {
    match option {
        Meta::List(list) => list.parse_args_with(Punctuated::parse_terminated),
        other => Err(syn::Error::new_spanned(other, format!("write {}(...)", key(option)))),
    }
}
