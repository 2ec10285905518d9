//! `#[tool]`: its options, and the tool definition made of a function, its options and a
//! handler.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, ItemFn, Meta, Signature, Token};

use crate::function::{check, constructor, doc_comment, fn_name, refuse_receiver};
use crate::names::check_tool_name;
use crate::options::{flag, key, spanned_text, text, unknown};
use crate::parameters::{Handler, Parameters};

const OPTIONS: &str = "name, title, description, read_only, destructive, idempotent or open_world";

/// What `#[tool]` says when it is not on an `async fn`.
pub(crate) const HANDLER: &str = "a tool handler is an async function whose parameters are extractors";

/// The options of one `#[tool(...)]`.
pub(crate) struct ToolOptions {
    /// `name = "..."`, and where it is written.
    name: Option<(String, Span)>,
    title: Option<String>,
    description: Option<String>,
    /// The `ToolAnnotations` fields the hints set.
    hints: [(&'static str, Option<bool>); 4],
}

impl ToolOptions {
    /// Reads the options.
    pub(crate) fn parse(options: &Punctuated<Meta, Token![,]>) -> syn::Result<Self> {
        let mut this = Self {
            name: None,
            title: None,
            description: None,
            hints: [
                ("read_only_hint", None),
                ("destructive_hint", None),
                ("idempotent_hint", None),
                ("open_world_hint", None),
            ],
        };
        for option in options {
            match key(option).as_str() {
                "name" => this.name = Some(spanned_text(option)?),
                "title" => this.title = Some(text(option)?),
                "description" => this.description = Some(text(option)?),
                hint @ ("read_only" | "destructive" | "idempotent" | "open_world") => {
                    let slot = this
                        .hints
                        .iter_mut()
                        .find(|(field, _)| field.starts_with(hint))
                        .expect("a known hint");
                    slot.1 = Some(flag(option)?);
                }
                _ => return Err(unknown("tool", option, OPTIONS)),
            }
        }
        Ok(this)
    }

    /// A block that makes the `ToolDef` of the function with `signature` and `attrs`: it runs
    /// `prelude`, then builds the definition from `handler` and these options. The tool's name
    /// (`name = "..."`, or the function's) must follow the rule the server checks.
    pub(crate) fn definition(
        &self,
        signature: &Signature,
        attrs: &[Attribute],
        prelude: TokenStream,
        handler: TokenStream,
    ) -> syn::Result<TokenStream> {
        let (tool_name, span) = match &self.name {
            Some((text, span)) => (text.clone(), *span),
            None => (fn_name(signature), signature.ident.span()),
        };
        check_tool_name(&tool_name, span)?;
        let description = self
            .description
            .clone()
            .or_else(|| doc_comment(attrs))
            .map(|text| quote! { let tool = tool.description(#text); });
        let title = self.title.as_ref().map(|text| quote! { let tool = tool.title(#text); });
        let annotations = self.hints.iter().any(|(_, value)| value.is_some()).then(|| {
            let fields = self.hints.iter().filter_map(|(field, value)| {
                let field = Ident::new(field, Span::call_site());
                value.map(|v| quote! { #field: ::core::option::Option::Some(#v), })
            });
            quote! {
                let tool = tool.annotations(::modelctx::protocol::types::ToolAnnotations {
                    #(#fields)*
                    ..::core::default::Default::default()
                });
            }
        });
        Ok(quote! {{
            #prelude
            let tool = ::modelctx::server::ToolDef::new(#tool_name, #handler);
            #description
            #title
            #annotations
            tool
        }})
    }
}

/// `#[tool]` on a function: the function, its plain parameters' attributes taken off, and
/// `<name>_tool()`.
pub(crate) fn expand(options: Punctuated<Meta, Token![,]>, mut function: ItemFn) -> syn::Result<TokenStream> {
    check(&function.sig, "tool", HANDLER)?;
    refuse_receiver(
        &function.sig,
        "tool",
        "share state with `State<T>` or captured values, or put the method in an impl block marked #[modelctx::tools]",
    )?;
    let options = ToolOptions::parse(&options)?;
    let parameters = Parameters::take(&mut function.sig)?;
    let function_name = &function.sig.ident;
    // Without plain parameters the function is the handler itself, as a person would write it.
    let (prelude, handler) = if parameters.has_plain() {
        let Handler { arguments_struct, closure_params, call_arguments } = parameters.handler();
        (arguments_struct, quote! { |#(#closure_params),*| #function_name(#(#call_arguments),*) })
    } else {
        (None, quote! { #function_name })
    };
    let definition = options.definition(&function.sig, &function.attrs, quote! { #prelude }, handler)?;
    let visibility = &function.vis;
    let constructor = constructor(&function.sig, "tool");
    let doc = format!("The tool definition of [`{function_name}`], generated by `#[tool]`.");
    Ok(quote! {
        #function

        #[doc = #doc]
        #visibility fn #constructor() -> ::modelctx::server::ToolDef #definition
    })
}
