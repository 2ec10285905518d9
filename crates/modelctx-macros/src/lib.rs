//! Attribute macros for `modelctx`. Use them through `modelctx` (`modelctx::tool`,
//! `modelctx::tools`, `modelctx::prompt`, `modelctx::resource`), not directly: each keeps the
//! function and adds a constructor that calls `modelctx`'s public builder — exactly what you
//! could write by hand. The function's doc comment becomes the description.
//!
//! A tool function takes its arguments in one of two forms, or none:
//!
//! - **plain parameters**, `async fn add(a: f64, b: f64) -> String`: the macro writes the
//!   arguments struct (`Deserialize` and `JsonSchema`, through the versions `modelctx`
//!   re-exports) whose fields are the parameters, and the tool's input schema is its schema.
//!   A parameter's doc comment is its description; an `Option<T>` parameter may be left out;
//!   `#[serde(...)]` and `#[schemars(...)]` on a parameter go to its field.
//! - **one `Args<T>`**, `async fn add(Args(Sum { a, b }): Args<Sum>)`, for a struct of your own.
//!
//! Either way a tool may also take the other extractors, `RequestContext` and `State<T>`. A
//! parameter is an extractor when it is written as a pattern (`Args(x): Args<X>`) or its
//! type is named `Args`, `RequestContext` or `State`; every other `name: Type` is plain.
//!
//! `#[tools]` on an impl block does the same for its `#[tool]` methods taking `&self`, the
//! way rmcp's `#[tool_router]` does: their tools share one value, behind an `Arc`.
//!
//! The name a tool is registered under (the function's, or `name = "..."`) must be 1 to 128
//! characters of `A-Z a-z 0-9 _ - .`; the macros refuse any other at compile time, where the
//! server would refuse it when built.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod function;
mod names;
mod options;
mod parameters;
mod prompt;
mod resource;
mod tool;
mod tools;

use proc_macro::TokenStream;
use syn::punctuated::Punctuated;
use syn::{ItemFn, ItemImpl, Meta, Token, parse_macro_input};

/// Declares an async function as an MCP tool: generates `fn <name>_tool() -> ToolDef`.
///
/// Options: `name = "..."` (default: the function's name), `title = "..."`,
/// `description = "..."` (overrides the doc comment), and the behaviour hints `read_only`,
/// `destructive`, `idempotent`, `open_world` (each may be `= false`).
///
/// The parameters are plain (`name: String`, fields of the tool's arguments), or one
/// `Args<T>`, with at most two more extractors (`RequestContext`, `State<T>`); see the crate
/// documentation.
///
/// ```ignore
/// /// Adds two numbers.
/// #[modelctx::tool(read_only)]
/// async fn add(
///     /// The first addend.
///     a: f64,
///     /// The second addend.
///     b: f64,
/// ) -> Json<Sum> {
///     Json(Sum { sum: a + b })
/// }
///
/// let server = Server::with_info(info).tool(add_tool()).build()?;
/// ```
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr with Punctuated::<Meta, Token![,]>::parse_terminated);
    let function = parse_macro_input!(item as ItemFn);
    tool::expand(options, function).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Serves the `#[tool]` methods of an impl block as the tools of one shared value, the way
/// an rmcp `#[tool_router]` block does: generates
/// `pub fn tools(self: Arc<Self>) -> Vec<ToolDef>`, whose tools each call their method on the
/// value. Each method is an `async fn` taking `&self`, then parameters as for `#[tool]`
/// (plain ones, or one `Args<T>`, and the extractors); `#[tool]` on a method takes the same
/// options as on a function, and needs no import inside the block. State the tools change
/// lives behind a lock in the value (a `Mutex` field). Other methods are left alone.
///
/// ```ignore
/// #[derive(Default)]
/// struct Counter {
///     count: Mutex<u64>,
/// }
///
/// #[modelctx::tools]
/// impl Counter {
///     /// Adds `by` to the count and returns the new count.
///     #[tool]
///     async fn increment(
///         &self,
///         /// How much to add.
///         by: u64,
///     ) -> String {
///         let mut count = self.count.lock().unwrap();
///         *count += by;
///         count.to_string()
///     }
/// }
///
/// let counter = Arc::new(Counter::default());
/// let server = Server::builder("counter", "1.0.0").tools(counter.tools()).build()?;
/// ```
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new_spanned(attr, "#[tools] takes no options; give them to each #[tool]")
            .into_compile_error()
            .into();
    }
    let block = parse_macro_input!(item as ItemImpl);
    tools::expand(block).into()
}

/// Declares an async function `fn(PromptRequest) -> Result<Vec<PromptMessage>, PromptError>`
/// as a prompt: generates `fn <name>_prompt() -> PromptDef`.
///
/// Options: `name`, `title`, `description`, and one
/// `argument(name = "...", description = "...", required)` per argument.
///
/// ```ignore
/// /// Asks the model to greet someone.
/// #[modelctx::prompt(argument(name = "name", description = "Who to greet", required))]
/// async fn greeting(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> { /* … */ }
/// ```
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr with Punctuated::<Meta, Token![,]>::parse_terminated);
    let function = parse_macro_input!(item as ItemFn);
    prompt::expand(options, function).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Declares an async function `fn(ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError>`
/// as a resource: generates `fn <name>_resource()`, a `ResourceDef` for a fixed `uri`, or a
/// `ResourceTemplateDef` when `uri` is an RFC 6570 template (it contains `{`).
///
/// Options: `uri = "..."` (required), `name` (default: the function's name), `title`,
/// `description`, `mime_type`.
///
/// ```ignore
/// /// One item, by id.
/// #[modelctx::resource(uri = "items://{id}", mime_type = "application/json")]
/// async fn item(request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> { /* … */ }
/// ```
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = parse_macro_input!(attr with Punctuated::<Meta, Token![,]>::parse_terminated);
    let function = parse_macro_input!(item as ItemFn);
    resource::expand(options, function).unwrap_or_else(syn::Error::into_compile_error).into()
}

#[cfg(test)]
mod tests {
    /// Misuse of the macros fails to compile with a message that says why (each case in
    /// `tests/ui` beside the compiler's expected output).
    #[test]
    fn misuse_fails_to_compile_with_a_message_that_says_why() {
        trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
    }
}
