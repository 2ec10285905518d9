//! A tool function's parameters, sorted into extractors and plain parameters: the plain ones
//! become the fields of an arguments struct the macro writes, which the handler takes as
//! `Args<…>` and spreads back into the function's parameters.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, FnArg, Ident, Pat, PatIdent, Signature, Type};

/// The attributes a plain parameter hands to its field: its doc comment (the field's
/// description) and serde's and schemars' field options.
const FIELD_ATTRIBUTES: [&str; 3] = ["doc", "serde", "schemars"];

/// The type names taken as extractors when a parameter is written `name: Type`.
const EXTRACTORS: [&str; 3] = ["Args", "RequestContext", "State"];

/// A plain parameter: a field of the arguments struct.
struct Plain {
    ident: Ident,
    ty: Type,
    attrs: Vec<Attribute>,
}

/// One parameter as the handler passes it on.
enum Parameter {
    /// A field of the arguments struct, bound to the parameter's own name.
    Plain(Plain),
    /// A value the handler extracts itself, bound to a name of the macro's.
    Extractor(Ident, Type),
}

/// The parameters of a tool function, in order, without the receiver.
pub(crate) struct Parameters {
    /// The function's name in CamelCase, the stem of the arguments struct's schema title.
    stem: String,
    parameters: Vec<Parameter>,
}

/// The name of the type `ty` is a path to (`State` for `modelctx::server::State<Db>`).
fn type_name(ty: &Type) -> Option<&Ident> {
    match ty {
        Type::Path(path) => path.path.segments.last().map(|last| &last.ident),
        _ => None,
    }
}

/// Whether `ty` names one of [`EXTRACTORS`].
fn names_extractor(ty: &Type) -> bool {
    type_name(ty).is_some_and(|name| EXTRACTORS.iter().any(|extractor| name == extractor))
}

/// `add_numbers` → `AddNumbers`.
fn camel_case(name: &str) -> String {
    name.split('_')
        .flat_map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars))
        })
        .flatten()
        .collect()
}

impl Parameters {
    /// Sorts the parameters of `signature` and takes from each the attributes the macro
    /// consumes (doc comments, and a plain parameter's serde and schemars options), which the
    /// function itself may not carry. A parameter written as a pattern (`Args(x): Args<X>`) or
    /// whose type is named `Args`, `RequestContext` or `State` is an extractor; any other
    /// `name: Type` is plain.
    pub(crate) fn take(signature: &mut Signature) -> syn::Result<Self> {
        use syn::ext::IdentExt;
        let stem = camel_case(&signature.ident.unraw().to_string());
        let mut parameters = Vec::new();
        for input in &mut signature.inputs {
            let FnArg::Typed(typed) = input else { continue };
            let (consumed, kept): (Vec<Attribute>, _) = std::mem::take(&mut typed.attrs)
                .into_iter()
                .partition(|attr| FIELD_ATTRIBUTES.iter().any(|name| attr.path().is_ident(name)));
            typed.attrs = kept;
            let parameter = match &*typed.pat {
                Pat::Ident(PatIdent { ident, subpat: None, .. }) if !names_extractor(&typed.ty) => {
                    Parameter::Plain(Plain { ident: ident.clone(), ty: (*typed.ty).clone(), attrs: consumed })
                }
                _ => {
                    // A doc comment on an extractor describes nothing; serde's and schemars'
                    // options stay, for rustc to refuse.
                    typed.attrs.extend(consumed.into_iter().filter(|attr| !attr.path().is_ident("doc")));
                    let binding = format_ident!("extracted_{}", parameters.len(), span = Span::mixed_site());
                    Parameter::Extractor(binding, (*typed.ty).clone())
                }
            };
            parameters.push(parameter);
        }
        let this = Self { stem, parameters };
        this.check_args_alone(signature)?;
        Ok(this)
    }

    /// Refuses plain parameters next to an `Args<T>` extractor: both would be read from the
    /// same arguments object, and only one can give the tool its input schema.
    fn check_args_alone(&self, signature: &Signature) -> syn::Result<()> {
        if !self.has_plain() {
            return Ok(());
        }
        let args = signature.inputs.iter().find_map(|input| match input {
            FnArg::Typed(typed) if type_name(&typed.ty).is_some_and(|name| name == "Args") => Some(&typed.ty),
            _ => None,
        });
        match args {
            Some(ty) => Err(syn::Error::new_spanned(
                ty,
                "a tool takes either plain parameters or one `Args<T>`, not both: move the plain \
                 parameters into `T`, or `T`'s fields into plain parameters",
            )),
            None => Ok(()),
        }
    }

    /// The plain parameters, in order.
    fn plain(&self) -> impl Iterator<Item = &Plain> {
        self.parameters.iter().filter_map(|p| match p {
            Parameter::Plain(plain) => Some(plain),
            Parameter::Extractor(..) => None,
        })
    }

    /// Whether some parameter is plain, so that the handler needs the arguments struct.
    pub(crate) fn has_plain(&self) -> bool {
        self.plain().next().is_some()
    }

    /// The handler's parts: the arguments struct (when a parameter is plain), the closure's
    /// parameter list, and the arguments to call the function with, in the function's order.
    pub(crate) fn handler(&self) -> Handler {
        let struct_name = Ident::new("__ToolArguments", Span::mixed_site());
        let (arguments_struct, arguments_param) = if self.has_plain() {
            let title = format!("{}Args", self.stem);
            let fields = self.plain().map(|Plain { ident, ty, attrs }| quote! { #(#attrs)* #ident: #ty });
            let idents = self.plain().map(|plain| &plain.ident);
            let item = quote! {
                #[derive(::modelctx::serde::Deserialize, ::modelctx::schemars::JsonSchema)]
                #[serde(crate = "::modelctx::serde", rename = #title)]
                #[schemars(crate = "::modelctx::schemars")]
                struct #struct_name {
                    #(#fields,)*
                }
            };
            let param = quote! {
                ::modelctx::server::Args(#struct_name { #(#idents),* }): ::modelctx::server::Args<#struct_name>
            };
            (Some(item), Some(param))
        } else {
            (None, None)
        };
        let extractors = self.parameters.iter().filter_map(|p| match p {
            Parameter::Extractor(binding, ty) => Some(quote! { #binding: #ty }),
            Parameter::Plain(_) => None,
        });
        let closure_params = arguments_param.into_iter().chain(extractors).collect();
        let call_arguments = self
            .parameters
            .iter()
            .map(|p| match p {
                Parameter::Plain(Plain { ident, .. }) | Parameter::Extractor(ident, _) => ident.clone(),
            })
            .collect();
        Handler { arguments_struct, closure_params, call_arguments }
    }
}

/// What a handler closure is made of.
pub(crate) struct Handler {
    /// The arguments struct's definition, when a parameter is plain.
    pub(crate) arguments_struct: Option<TokenStream>,
    /// The closure's parameters: the arguments struct's `Args`, then the extractors.
    pub(crate) closure_params: Vec<TokenStream>,
    /// The function's arguments, in its order.
    pub(crate) call_arguments: Vec<Ident>,
}
