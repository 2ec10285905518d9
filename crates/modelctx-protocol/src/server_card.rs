//! Server cards (`io.modelcontextprotocol/server-card`, SEP-2127, experimental): a static
//! document that describes a remote server before any connection — its identity, its HTTP
//! endpoints and the protocol versions they speak — and the AI Catalog entries that list
//! cards for a domain (`/.well-known/ai-catalog.json`).
//!
//! Built against the SEP text at `a6c26fa6` and the extension repository at `8924e086`
//! (`schema.ts`, `docs/discovery.md`); the draft may change. A card is advisory: what a live
//! connection says (`server/discover`) wins, and [`ServerCard::disagreements`] names where
//! the two differ.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::types::{Icon, Implementation};

/// The extension's identifier, declared in `capabilities.extensions` by a server that serves
/// its card.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/server-card";

/// The media type of a card.
pub const MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// The one `$schema` a v1 card names.
pub const SCHEMA_URL: &str = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// What a server appends to its Streamable HTTP URL to serve its card there.
pub const CARD_SUFFIX: &str = "/server-card";

/// The well-known path of a domain's AI Catalog.
pub const CATALOG_PATH: &str = "/.well-known/ai-catalog.json";

/// The media type of an AI Catalog.
pub const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";

/// The AI Catalog `specVersion` this crate writes.
pub const CATALOG_SPEC_VERSION: &str = "1.0";

/// A server card (`ServerCard`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCard {
    /// The schema the card follows: [`SCHEMA_URL`].
    #[serde(rename = "$schema")]
    pub schema: String,
    /// Reverse-DNS name with one slash: `com.example/weather`.
    pub name: String,
    /// The server's version (`Implementation.version`).
    pub version: String,
    /// What the server does, in at most 100 characters.
    pub description: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The server's web page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Where its source is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<Repository>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Its HTTP endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remotes: Option<Vec<Remote>>,
    /// Namespaced vendor metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Where a server's source is kept (`Repository`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repository {
    /// The repository's URL.
    pub url: String,
    /// Its host: `github`, say.
    pub source: String,
    /// The server's folder within it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subfolder: Option<String>,
    /// The host's stable identifier of the repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The transport of a [`Remote`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RemoteType {
    /// Streamable HTTP.
    #[serde(rename = "streamable-http")]
    StreamableHttp,
    /// The deprecated HTTP+SSE transport.
    #[serde(rename = "sse")]
    Sse,
}

/// One HTTP endpoint of a server (`Remote`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Remote {
    /// Its transport.
    #[serde(rename = "type")]
    pub transport: RemoteType,
    /// Its URL, which may hold `{variables}`.
    pub url: String,
    /// Headers a client sends to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<KeyValueInput>>,
    /// The variables of `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variables: Option<BTreeMap<String, Input>>,
    /// The protocol versions it speaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_protocol_versions: Option<Vec<String>>,
}

/// A value a person supplies or the card presets (`Input`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether a connection needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_required: Option<bool>,
    /// Whether it is a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_secret: Option<bool>,
    /// `string`, `number`, `boolean` or `filepath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// An example shown while it is typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// A preset value, not for the person to change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The values allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
}

/// A header of a [`Remote`] (`KeyValueInput`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValueInput {
    /// The header's name.
    pub name: String,
    /// Its value and how to ask for it.
    #[serde(flatten)]
    pub input: Input,
    /// The variables of `input.value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variables: Option<BTreeMap<String, Input>>,
}

/// An AI Catalog: the documents a domain lists, cards among them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AiCatalog {
    /// The catalog format's version.
    pub spec_version: String,
    /// What it lists.
    pub entries: Vec<CatalogEntry>,
}

/// One entry of an [`AiCatalog`]: a card by `url`, or inline as `data`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// A discovery identifier: `urn:air:example.com:mcp:weather`.
    pub identifier: String,
    /// The entry's media type: [`MEDIA_TYPE`] for a card.
    #[serde(rename = "type")]
    pub media_type: String,
    /// Where the document is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The document itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

/// Where a card or a catalog entry breaks the draft's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardError {
    /// The member at fault: `name`, `remotes[0].url`.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for CardError {}

fn invalid(field: impl Into<String>, reason: impl Into<String>) -> CardError {
    CardError { field: field.into(), reason: reason.into() }
}

/// Checks that `text` has between `min` and `max` characters.
fn check_length(field: &str, text: &str, min: usize, max: usize) -> Result<(), CardError> {
    let count = text.chars().count();
    if count < min || count > max {
        return Err(invalid(field, format!("has {count} characters; between {min} and {max} are allowed")));
    }
    Ok(())
}

/// Checks a card name: `namespace/name`, the namespace of letters, digits, `.` and `-`, the
/// name of those and `_`, 3 to 200 characters in all.
pub fn check_name(name: &str) -> Result<(), CardError> {
    check_length("name", name, 3, 200)?;
    let shape = "must be reverse-DNS with one slash, as in com.example/weather";
    let (namespace, server) = name.split_once('/').ok_or_else(|| invalid("name", shape))?;
    let namespace_ok = !namespace.is_empty()
        && namespace.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'));
    let server_ok = !server.is_empty()
        && server.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if namespace_ok && server_ok { Ok(()) } else { Err(invalid("name", shape)) }
}

/// Checks a card description: 1 to 100 characters.
pub fn check_description(description: &str) -> Result<(), CardError> {
    check_length("description", description, 1, 100)
}

/// Whether `version` is a range (`^1.2`, `~1`, `>=1`, `1.x`, `1.*`), which a card may not give.
fn is_version_range(version: &str) -> bool {
    version.starts_with(['^', '~', '>', '<', '='])
        || version.split(['.', '-', '+']).any(|part| matches!(part, "x" | "X" | "*"))
}

/// Whether `url` is `http(s)://…` or starts with a `{variable}`, with no white space.
fn is_remote_url(url: &str) -> bool {
    if url.chars().any(char::is_whitespace) {
        return false;
    }
    if let Some(rest) = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")) {
        return !rest.is_empty();
    }
    let Some(rest) = url.strip_prefix('{') else { return false };
    let Some((variable, _)) = rest.split_once('}') else { return false };
    let mut chars = variable.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl ServerCard {
    /// A card for a server named `name` (reverse-DNS) at `version`, described by
    /// `description`, with no endpoints yet.
    pub fn new(name: impl Into<String>, version: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            schema: SCHEMA_URL.to_owned(),
            name: name.into(),
            version: version.into(),
            description: description.into(),
            title: None,
            website_url: None,
            repository: None,
            icons: None,
            remotes: None,
            meta: None,
        }
    }

    /// Checks the card against the draft's schema: the `$schema`, the name's shape, the
    /// lengths, a version that is not a range, and each endpoint's URL.
    pub fn validate(&self) -> Result<(), CardError> {
        if self.schema != SCHEMA_URL {
            return Err(invalid("$schema", format!("must be {SCHEMA_URL}")));
        }
        check_name(&self.name)?;
        check_length("version", &self.version, 1, 255)?;
        if is_version_range(&self.version) {
            return Err(invalid("version", "is a range; a card names one version"));
        }
        check_description(&self.description)?;
        if let Some(title) = &self.title {
            check_length("title", title, 1, 100)?;
        }
        for (index, remote) in self.remotes.iter().flatten().enumerate() {
            if !is_remote_url(&remote.url) {
                return Err(invalid(
                    format!("remotes[{index}].url"),
                    "must start with http://, https:// or a {variable}, with no white space",
                ));
            }
        }
        Ok(())
    }

    /// The first Streamable HTTP endpoint, if the card has one.
    pub fn streamable_http(&self) -> Option<&Remote> {
        self.remotes.iter().flatten().find(|remote| remote.transport == RemoteType::StreamableHttp)
    }

    /// Where what a live connection reports (`server/discover` or `initialize`: the server's
    /// `info` and the `version` it speaks) contradicts this card. The live values win.
    pub fn disagreements(&self, info: Option<&Implementation>, version: &str) -> Vec<Disagreement> {
        let mut found = Vec::new();
        let mut differ = |field: &str, card: Option<&str>, live: Option<&str>| {
            if let (Some(card), Some(live)) = (card, live)
                && card != live
            {
                found.push(Disagreement {
                    field: field.to_owned(),
                    card: card.to_owned(),
                    live: live.to_owned(),
                });
            }
        };
        if let Some(info) = info {
            differ("version", Some(&self.version), Some(&info.version));
            differ("title", self.title.as_deref(), info.title.as_deref());
            differ("description", Some(&self.description), info.description.as_deref());
            differ("websiteUrl", self.website_url.as_deref(), info.website_url.as_deref());
        }
        if let Some(versions) = self.streamable_http().and_then(|r| r.supported_protocol_versions.as_ref())
            && !versions.iter().any(|v| v == version)
        {
            found.push(Disagreement {
                field: "supportedProtocolVersions".into(),
                card: versions.join(", "),
                live: version.to_owned(),
            });
        }
        found
    }

    /// The AI Catalog identifier of this card served at `url`:
    /// `urn:air:example.com:mcp:weather` for `com.example/weather`.
    pub fn catalog_entry(&self, url: impl Into<String>) -> CatalogEntry {
        let (namespace, server) = self.name.split_once('/').unwrap_or(("", &self.name));
        let publisher: Vec<&str> = namespace.rsplit('.').collect();
        CatalogEntry {
            identifier: format!("urn:air:{}:mcp:{server}", publisher.join(".")),
            media_type: MEDIA_TYPE.to_owned(),
            url: Some(url.into()),
            data: None,
        }
    }
}

/// A field where a card and a live connection differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// The card's member.
    pub field: String,
    /// What the card says.
    pub card: String,
    /// What the server said when connected (this wins).
    pub live: String,
}

impl Remote {
    /// A Streamable HTTP endpoint at `url` speaking `versions`.
    pub fn streamable_http(url: impl Into<String>, versions: Vec<String>) -> Self {
        Self {
            transport: RemoteType::StreamableHttp,
            url: url.into(),
            headers: None,
            variables: None,
            supported_protocol_versions: Some(versions),
        }
    }

    /// The endpoint's URL with its `{variables}` filled from `values`, else from their
    /// presets or defaults; a variable with none is an error naming it.
    pub fn resolve_url(&self, values: &BTreeMap<String, String>) -> Result<String, CardError> {
        fill(&self.url, self.variables.as_ref(), values)
    }
}

impl KeyValueInput {
    /// The header's value with its `{variables}` filled as [`Remote::resolve_url`] fills a
    /// URL's; `None` when the card presets no value (the person supplies one).
    pub fn resolve_value(&self, values: &BTreeMap<String, String>) -> Result<Option<String>, CardError> {
        self.input.value.as_deref().map(|value| fill(value, self.variables.as_ref(), values)).transpose()
    }
}

/// `template` with each `{name}` replaced by `values[name]`, else the variable's preset value
/// or default.
fn fill(
    template: &str,
    variables: Option<&BTreeMap<String, Input>>,
    values: &BTreeMap<String, String>,
) -> Result<String, CardError> {
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            return Err(invalid(template, "a `{` is never closed"));
        };
        let name = &rest[open + 1..open + close];
        let preset = variables.and_then(|vars| vars.get(name));
        let value = values
            .get(name)
            .map(String::as_str)
            .or_else(|| preset.and_then(|input| input.value.as_deref().or(input.default.as_deref())))
            .ok_or_else(|| invalid(format!("variable {name}"), "has no value and no default"))?;
        filled.push_str(value);
        rest = &rest[open + close + 1..];
    }
    filled.push_str(rest);
    Ok(filled)
}

impl CatalogEntry {
    /// Whether the entry is a server card.
    pub fn is_card(&self) -> bool {
        self.media_type == MEDIA_TYPE
    }

    /// Checks that the entry gives exactly one of `url` and `data`.
    pub fn validate(&self) -> Result<(), CardError> {
        match (&self.url, &self.data) {
            (Some(_), None) | (None, Some(_)) => Ok(()),
            _ => Err(invalid(format!("entry {}", self.identifier), "must give exactly one of url and data")),
        }
    }
}

impl AiCatalog {
    /// A catalog of `entries`.
    pub fn new(entries: Vec<CatalogEntry>) -> Self {
        Self { spec_version: CATALOG_SPEC_VERSION.to_owned(), entries }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_reverse_dns_with_one_slash() {
        assert!(check_name("com.example/weather").is_ok());
        assert!(check_name("io.github.someone/my_server-2").is_ok());
        for bad in ["weather", "com.example/", "/weather", "com example/weather", "a/b/c", "ab"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_card_names_the_v1_schema_one_version_and_urls_or_variables() {
        let mut card = ServerCard::new("com.example/weather", "1.2.0", "Forecasts");
        card.remotes = Some(vec![Remote::streamable_http("{base}/mcp", vec!["2026-07-28".into()])]);
        assert_eq!(card.validate(), Ok(()));
        for version in ["^1.2.3", "~1.2.3", ">=1.2.3", "1.x", "1.*"] {
            let card = ServerCard { version: version.into(), ..card.clone() };
            assert_eq!(card.validate().unwrap_err().field, "version", "{version}");
        }
        let card = ServerCard { schema: "https://example.com/s.json".into(), ..card.clone() };
        assert_eq!(card.validate().unwrap_err().field, "$schema");
        let mut bad_url = ServerCard::new("com.example/weather", "1", "Forecasts");
        bad_url.remotes = Some(vec![Remote::streamable_http("ftp://host/mcp", Vec::new())]);
        assert_eq!(bad_url.validate().unwrap_err().field, "remotes[0].url");
        let long = ServerCard::new("com.example/weather", "1", "x".repeat(101));
        assert_eq!(long.validate().unwrap_err().field, "description");
    }

    #[test]
    fn variables_fill_from_values_then_presets_then_defaults() {
        let mut remote = Remote::streamable_http("https://{tenant}.example.com/{region}/mcp", Vec::new());
        remote.variables = Some(BTreeMap::from([
            ("tenant".into(), Input { is_required: Some(true), ..Input::default() }),
            ("region".into(), Input { default: Some("eu".into()), ..Input::default() }),
        ]));
        let err = remote.resolve_url(&BTreeMap::new()).unwrap_err();
        assert_eq!(err.field, "variable tenant");
        let values = BTreeMap::from([("tenant".to_owned(), "acme".to_owned())]);
        assert_eq!(remote.resolve_url(&values).unwrap(), "https://acme.example.com/eu/mcp");
    }

    #[test]
    fn catalog_identifiers_read_the_namespace_forwards() {
        let card = ServerCard::new("com.example/weather", "1", "Forecasts");
        let entry = card.catalog_entry("https://example.com/mcp/server-card");
        assert_eq!(entry.identifier, "urn:air:example.com:mcp:weather");
        assert!(entry.is_card() && entry.validate().is_ok());
        let both = CatalogEntry { data: Some(serde_json::json!({})), ..entry };
        assert!(both.validate().is_err());
    }

    #[test]
    fn the_live_values_are_compared_with_the_card() {
        let mut card = ServerCard::new("com.example/weather", "1.0.0", "Forecasts");
        card.remotes = Some(vec![Remote::streamable_http("https://x/mcp", vec!["2026-07-28".into()])]);
        let mut info = Implementation::new("weather", "1.0.1");
        info.description = Some("Forecasts".into());
        let found = card.disagreements(Some(&info), "2025-11-25");
        let fields: Vec<&str> = found.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["version", "supportedProtocolVersions"]);
        assert_eq!(found[0].live, "1.0.1");
    }
}
