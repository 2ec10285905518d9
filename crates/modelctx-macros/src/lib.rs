//! Attribute macros for `modelctx`. Use them through `modelctx` (`modelctx::tool`), not
//! directly: they expand to calls of `modelctx`'s public builders.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, ItemFn, Lit, Meta, Token, parse_macro_input};

/// Declares an async function as an MCP tool.
///
/// Next to the function it generates `fn <name>_tool() -> modelctx::server::ToolDef`, which
/// calls `ToolDef::new` with the function as its handler — exactly what you could write by
/// hand. The doc comment becomes the description. Options:
///
/// - `name = "..."`: the tool name (default: the function's name);
/// - `title = "..."`, `description = "..."` (overrides the doc comment);
/// - `read_only`, `destructive`, `idempotent`, `open_world` (each may be `= false`): the
///   behaviour hints of `ToolAnnotations`.
///
/// ```ignore
/// /// Adds two numbers.
/// #[modelctx::tool(read_only)]
/// async fn add(Args(AddArgs { a, b }): Args<AddArgs>) -> Json<Sum> {
///     Json(Sum { sum: a + b })
/// }
///
/// let server = Server::builder(info).tool(add_tool()).build()?;
/// ```
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr with Punctuated::<Meta, Token![,]>::parse_terminated);
    let function = parse_macro_input!(item as ItemFn);
    expand_tool(options, function).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// The options of `#[tool]`.
#[derive(Default)]
struct ToolOptions {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

const OPTIONS: &str = "name, title, description, read_only, destructive, idempotent or open_world";

fn string_value(value: &Expr, key: &str) -> syn::Result<String> {
    match value {
        Expr::Lit(ExprLit { lit: Lit::Str(text), .. }) => Ok(text.value()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal, as in {key} = \"...\""),
        )),
    }
}

fn bool_value(value: &Expr, key: &str) -> syn::Result<bool> {
    match value {
        Expr::Lit(ExprLit { lit: Lit::Bool(flag), .. }) => Ok(flag.value),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes `true` or `false` (or stands alone for true)"),
        )),
    }
}

impl ToolOptions {
    fn parse(options: Punctuated<Meta, Token![,]>) -> syn::Result<Self> {
        let mut parsed = Self::default();
        for option in options {
            let key = option.path().get_ident().map(ToString::to_string).unwrap_or_default();
            let flag = |slot: &mut Option<bool>| -> syn::Result<()> {
                *slot = Some(match &option {
                    Meta::Path(_) => true,
                    Meta::NameValue(pair) => bool_value(&pair.value, &key)?,
                    Meta::List(list) => {
                        return Err(syn::Error::new_spanned(
                            list,
                            format!("write `{key}` or `{key} = false`"),
                        ));
                    }
                });
                Ok(())
            };
            let text = || -> syn::Result<String> {
                match &option {
                    Meta::NameValue(pair) => string_value(&pair.value, &key),
                    other => Err(syn::Error::new_spanned(other, format!("write {key} = \"...\""))),
                }
            };
            match key.as_str() {
                "name" => parsed.name = Some(text()?),
                "title" => parsed.title = Some(text()?),
                "description" => parsed.description = Some(text()?),
                "read_only" => flag(&mut parsed.read_only)?,
                "destructive" => flag(&mut parsed.destructive)?,
                "idempotent" => flag(&mut parsed.idempotent)?,
                "open_world" => flag(&mut parsed.open_world)?,
                _ => {
                    return Err(syn::Error::new_spanned(
                        option.path(),
                        format!("unknown #[tool] option `{key}`; the options are {OPTIONS}"),
                    ));
                }
            }
        }
        Ok(parsed)
    }
}

/// The function's `///` comment, lines joined, common indentation removed.
fn doc_comment(function: &ItemFn) -> Option<String> {
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

fn expand_tool(
    options: Punctuated<Meta, Token![,]>,
    function: ItemFn,
) -> syn::Result<proc_macro2::TokenStream> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            signature.fn_token,
            "#[tool] goes on an `async fn`: a tool handler is an async function whose parameters are extractors",
        ));
    }
    if !signature.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(&signature.generics, "a #[tool] function cannot be generic"));
    }
    if let Some(receiver) = signature.receiver() {
        return Err(syn::Error::new_spanned(
            receiver,
            "a #[tool] function cannot take `self`; share state with `State<T>` instead",
        ));
    }
    let options = ToolOptions::parse(options)?;
    let function_name = &signature.ident;
    let visibility = &function.vis;
    let tool_name = options.name.clone().unwrap_or_else(|| function_name.to_string());
    let constructor = format_ident!("{}_tool", function_name, span = Span::call_site());
    let description = options.description.clone().or_else(|| doc_comment(&function));
    let description = description.map(|text| quote! { let tool = tool.description(#text); });
    let title = options.title.as_ref().map(|text| quote! { let tool = tool.title(#text); });
    let hints = [
        (quote! { read_only_hint }, options.read_only),
        (quote! { destructive_hint }, options.destructive),
        (quote! { idempotent_hint }, options.idempotent),
        (quote! { open_world_hint }, options.open_world),
    ];
    let annotations = hints.iter().any(|(_, value)| value.is_some()).then(|| {
        let fields = hints
            .iter()
            .filter_map(|(field, value)| value.map(|v| quote! { #field: ::core::option::Option::Some(#v), }));
        quote! {
            let tool = tool.annotations(::modelctx::protocol::types::ToolAnnotations {
                #(#fields)*
                ..::core::default::Default::default()
            });
        }
    });
    let doc = format!("The tool definition of [`{function_name}`], generated by `#[tool]`.");
    Ok(quote! {
        #function

        #[doc = #doc]
        #visibility fn #constructor() -> ::modelctx::server::ToolDef {
            let tool = ::modelctx::server::ToolDef::new(#tool_name, #function_name);
            #description
            #title
            #annotations
            tool
        }
    })
}
