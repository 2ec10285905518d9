//! Resources: fixed URIs and RFC 6570 URI templates, read through async handlers.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine;
use futures::future::BoxFuture;
use modelctx_protocol::types::{
    Annotations, BlobResourceContents, Icon, Resource, ResourceTemplate, TextOrBlob, TextResourceContents,
};
use modelctx_protocol::uri_template::UriTemplate;

use super::cache_hints::cache_setter;
use super::completion::Completer;
use super::context::RequestContext;
use super::error::RegistrationError;
use super::extract::{Handler, IntoOutput, Rejection};
use super::middleware::{Layered, layer_setter};
use super::options::CacheDefaults;

/// A `resources/read` as a handler sees it.
#[derive(Clone)]
pub struct ResourceRequest {
    /// The request context.
    pub ctx: RequestContext,
    /// The URI asked for.
    pub uri: String,
    /// For a template, its variables decoded from the URI; empty for a fixed resource.
    pub variables: BTreeMap<String, String>,
}

impl ResourceRequest {
    /// The template variable `name` parsed as `T` (`request.variable::<u32>("id")?`). A
    /// missing or unparsable value means the URI names no resource: [`ResourceError::NotFound`].
    pub fn variable<T: std::str::FromStr>(&self, name: &str) -> Result<T, ResourceError> {
        self.variables.get(name).and_then(|value| value.parse().ok()).ok_or(ResourceError::NotFound)
    }
}

/// Why a resource could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceError {
    /// There is no such resource: `-32002` for legacy requests, `-32602` for modern ones.
    NotFound,
    /// Reading failed (`-32603`); the message is shown to the client.
    Failed(String),
}

pub(crate) type ReadFn =
    Arc<dyn Fn(ResourceRequest) -> BoxFuture<'static, Result<Vec<TextOrBlob>, ResourceError>> + Send + Sync>;

/// The read function of `handler`, whose parameters are extractors: variables that do not
/// fit [`crate::server::Args<T>`] name no resource.
fn read_fn<H, M>(handler: H) -> ReadFn
where
    H: Handler<ResourceRequest, M>,
    H::Output: IntoOutput<Vec<TextOrBlob>, ResourceError>,
{
    Arc::new(move |request| match handler.call(request) {
        Ok(contents) => Box::pin(async move { contents.await.into_output() }),
        Err(Rejection::Invalid(_)) => Box::pin(std::future::ready(Err(ResourceError::NotFound))),
        Err(rejection) => Box::pin(std::future::ready(Err(ResourceError::Failed(rejection.to_string())))),
    })
}

/// Text contents for `uri`.
pub fn text_contents(uri: impl Into<String>, mime_type: Option<&str>, text: impl Into<String>) -> TextOrBlob {
    TextOrBlob::Text(TextResourceContents {
        uri: uri.into(),
        mime_type: mime_type.map(str::to_owned),
        text: text.into(),
        meta: None,
    })
}

/// Binary contents for `uri`, base64-encoded for the wire.
pub fn blob_contents(uri: impl Into<String>, mime_type: Option<&str>, bytes: &[u8]) -> TextOrBlob {
    TextOrBlob::Blob(BlobResourceContents {
        uri: uri.into(),
        mime_type: mime_type.map(str::to_owned),
        blob: base64::engine::general_purpose::STANDARD.encode(bytes),
        meta: None,
    })
}

/// Declares the builder setters shared by resources and templates.
macro_rules! describe_setters {
    ($field:ident) => {
        /// A human-readable name.
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.$field.title = Some(title.into());
            self
        }

        /// What it holds.
        pub fn description(mut self, description: impl Into<String>) -> Self {
            self.$field.description = Some(description.into());
            self
        }

        /// Its MIME type.
        pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
            self.$field.mime_type = Some(mime_type.into());
            self
        }

        /// Display hints.
        pub fn annotations(mut self, annotations: Annotations) -> Self {
            self.$field.annotations = Some(annotations);
            self
        }

        /// Icons for display.
        pub fn icons(mut self, icons: Vec<Icon>) -> Self {
            self.$field.icons = Some(icons);
            self
        }

        layer_setter!();
        cache_setter!();
    };
}

/// A resource at a fixed URI.
#[derive(Clone)]
pub struct ResourceDef {
    pub(crate) resource: Resource,
    pub(crate) read: ReadFn,
    pub(crate) layers: Layered,
    pub(crate) cache: Option<CacheDefaults>,
}

impl ResourceDef {
    /// A resource at `uri`, read by `handler`, whose parameters are extractors (the whole
    /// [`ResourceRequest`], [`RequestContext`], [`crate::server::State<T>`]).
    pub fn new<H, M>(uri: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<ResourceRequest, M>,
        H::Output: IntoOutput<Vec<TextOrBlob>, ResourceError>,
    {
        Self::listed(Resource { uri: uri.into(), name: name.into(), ..Resource::default() }, handler)
    }

    /// A resource described by `resource` whole — as another server listed it, for a proxy
    /// or a gateway — read by `handler`.
    pub fn listed<H, M>(resource: Resource, handler: H) -> Self
    where
        H: Handler<ResourceRequest, M>,
        H::Output: IntoOutput<Vec<TextOrBlob>, ResourceError>,
    {
        Self { resource, read: read_fn(handler), layers: Layered::default(), cache: None }
    }

    /// A resource whose contents are fixed text.
    pub fn text(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        let text: Arc<str> = text.into().into();
        Self::new(uri, name, move |request: ResourceRequest| {
            let text = text.clone();
            async move { Ok(vec![text_contents(request.uri, Some("text/plain"), &*text)]) }
        })
        .mime_type("text/plain")
    }

    describe_setters!(resource);

    /// Size in bytes, before any encoding.
    pub fn size(mut self, size: u64) -> Self {
        self.resource.size = Some(size);
        self
    }

    /// The description `resources/list` shows.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }
}

/// A family of resources behind an RFC 6570 URI template.
#[derive(Clone)]
pub struct ResourceTemplateDef {
    pub(crate) template: ResourceTemplate,
    pub(crate) read: ReadFn,
    pub(crate) completers: BTreeMap<String, Completer>,
    pub(crate) layers: Layered,
    pub(crate) cache: Option<CacheDefaults>,
}

impl ResourceTemplateDef {
    /// A template such as `file:///{+path}`; `handler` reads the resources it matches. Its
    /// parameters are extractors: [`crate::server::Args<T>`] takes the template's variables
    /// (a URI whose variables do not fit `T` names no resource), or the whole
    /// [`ResourceRequest`], [`RequestContext`], [`crate::server::State<T>`].
    pub fn new<H, M>(uri_template: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<ResourceRequest, M>,
        H::Output: IntoOutput<Vec<TextOrBlob>, ResourceError>,
    {
        let template = ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            ..ResourceTemplate::default()
        };
        Self::listed(template, handler)
    }

    /// A template described by `template` whole — as another server listed it, for a proxy
    /// or a gateway — whose resources `handler` reads.
    pub fn listed<H, M>(template: ResourceTemplate, handler: H) -> Self
    where
        H: Handler<ResourceRequest, M>,
        H::Output: IntoOutput<Vec<TextOrBlob>, ResourceError>,
    {
        Self {
            template,
            read: read_fn(handler),
            completers: BTreeMap::new(),
            layers: Layered::default(),
            cache: None,
        }
    }

    describe_setters!(template);

    /// Completes values of the template variable `variable` (`completion/complete` with a
    /// `ref/resource` reference).
    pub fn complete<H, M>(mut self, variable: impl Into<String>, completer: H) -> Self
    where
        H: Handler<super::CompletionRequest, M, Output = Vec<String>>,
    {
        self.completers.insert(variable.into(), super::completion::completer(completer));
        self
    }

    /// The description `resources/templates/list` shows.
    pub fn template(&self) -> &ResourceTemplate {
        &self.template
    }
}

/// Why `uri` is not an absolute URI as RFC 3986 writes one (RES-09): a scheme (a letter, then
/// letters, digits, `+`, `-` or `.`) and `:`, then only characters a URI may hold, each `%`
/// followed by two hexadecimal digits. `in_template` allows the `{…}` of template expressions.
pub(crate) fn uri_problem(uri: &str, in_template: bool) -> Option<String> {
    let Some((scheme, _)) = uri.split_once(':') else {
        return Some("it has no scheme (an absolute URI starts with one, such as `file:` or `app:`)".into());
    };
    let mut letters = scheme.chars();
    let scheme_ok = letters.next().is_some_and(|c| c.is_ascii_alphabetic())
        && letters.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Some(format!(
            "its scheme {scheme:?} is not one RFC 3986 allows (a letter, then letters, digits, +, - or .)"
        ));
    }
    let bytes = uri.as_bytes();
    for (at, c) in uri.char_indices() {
        let allowed = c.is_ascii_alphanumeric()
            || "-._~:/?#[]@!$&'()*+,;=".contains(c)
            || (in_template && matches!(c, '{' | '}'))
            || (c == '%' && bytes.get(at + 1..at + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)));
        if !allowed {
            return Some(format!("it holds {c:?} at byte {at}, which a URI must percent-encode"));
        }
    }
    None
}

impl ResourceDef {
    /// Checks the URI (RES-09).
    pub(crate) fn check(&self) -> Result<(), RegistrationError> {
        match uri_problem(&self.resource.uri, false) {
            None => Ok(()),
            Some(reason) => Err(RegistrationError::Resource { uri: self.resource.uri.clone(), reason }),
        }
    }
}

/// A template whose URI template parsed.
pub(crate) struct RegisteredTemplate {
    pub(crate) def: ResourceTemplateDef,
    pub(crate) parsed: UriTemplate,
}

impl RegisteredTemplate {
    pub(crate) fn new(def: ResourceTemplateDef) -> Result<Self, RegistrationError> {
        if let Some(reason) = uri_problem(&def.template.uri_template, true) {
            return Err(RegistrationError::Resource { uri: def.template.uri_template.clone(), reason });
        }
        let parsed = UriTemplate::parse(&def.template.uri_template).map_err(|e| {
            RegistrationError::Resource { uri: def.template.uri_template.clone(), reason: e.to_string() }
        })?;
        if let Some(unknown) =
            def.completers.keys().find(|name| !parsed.variables().any(|v| v == name.as_str()))
        {
            return Err(RegistrationError::Resource {
                uri: def.template.uri_template.clone(),
                reason: format!(
                    "a completer is registered for {unknown:?}, which is not a variable of the template"
                ),
            });
        }
        Ok(Self { def, parsed })
    }
}
