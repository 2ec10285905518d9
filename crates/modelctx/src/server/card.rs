//! The server's card (server cards, SEP-2127, experimental): what a server says about itself
//! to a client that has not connected yet, served over HTTP at `<endpoint>/server-card`
//! (`transport::http`). The card is made from the server's own `serverInfo` and versions, so
//! it cannot drift from what `server/discover` answers; [`CardSettings`] adds what a card
//! needs besides (a reverse-DNS name, the public URL, a shorter description if need be).

use std::time::Duration;

use modelctx_protocol::JsonObject;
use modelctx_protocol::era::ServerVersions;
use modelctx_protocol::server_card::{
    CardError, KeyValueInput, Remote, Repository, ServerCard, check_description, check_name,
};

use super::Server;
use crate::protocol::types::Implementation;

/// How long a client may keep a card before asking again, unless set: an hour, as the draft
/// suggests (`Cache-Control: public, max-age=3600`).
pub const DEFAULT_CARD_MAX_AGE: Duration = Duration::from_secs(3600);

/// What a server's card says besides its `serverInfo` and versions.
#[derive(Clone, Debug)]
pub struct CardSettings {
    name: String,
    description: Option<String>,
    public_url: Option<String>,
    repository: Option<Repository>,
    headers: Vec<KeyValueInput>,
    max_age: Duration,
    meta: Option<JsonObject>,
}

impl CardSettings {
    /// A card naming the server `name` (reverse-DNS with one slash: `com.example/weather`),
    /// checked when the server is built. It is described as the server's `serverInfo` is
    /// (`Implementation::description`), unless [`CardSettings::description`] says otherwise.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            public_url: None,
            repository: None,
            headers: Vec::new(),
            max_age: DEFAULT_CARD_MAX_AGE,
            meta: None,
        }
    }

    /// Describes the server in `description` (1 to 100 characters) rather than as its
    /// `serverInfo` does (a card's description is shorter than some servers'; the two should
    /// not contradict each other).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The endpoint's URL as clients reach it (`https://mcp.example.com/mcp`). Without it the
    /// card names the URL the card was asked for, less `/server-card` (its `Host`, and
    /// `https` when `X-Forwarded-Proto` says so): right for one address, wrong behind a
    /// proxy that rewrites the host.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// Where the server's source is.
    pub fn repository(mut self, repository: Repository) -> Self {
        self.repository = Some(repository);
        self
    }

    /// A header clients send to the endpoint (an API key, say), described for the person
    /// who configures the client. Never a secret's value: a card is public.
    pub fn header(mut self, header: KeyValueInput) -> Self {
        self.headers.push(header);
        self
    }

    /// How long clients may keep the card (`Cache-Control: max-age`).
    pub fn max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age;
        self
    }

    /// Namespaced vendor metadata (`_meta`).
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The settings of a server served beside this one at `<endpoint>/<name>` (a gateway's
    /// virtual server): named `NAME-<name>`, its public URL `URL/<name>`.
    pub fn beside(&self, name: &str) -> Self {
        Self {
            name: format!("{}-{name}", self.name),
            public_url: self.public_url.as_ref().map(|url| format!("{}/{name}", url.trim_end_matches('/'))),
            ..self.clone()
        }
    }

    /// How long clients may keep the card.
    pub fn card_max_age(&self) -> Duration {
        self.max_age
    }

    /// The configured public URL, if any.
    pub fn configured_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }

    /// Checks the card the server would serve: the name's shape, the description's length,
    /// and what it takes from `info` (a version that is not a range, a title of at most 100
    /// characters) and from the public URL.
    pub(crate) fn validate(&self, info: &Implementation, versions: &ServerVersions) -> Result<(), CardError> {
        check_name(&self.name)?;
        let description =
            self.description.as_ref().or(info.description.as_ref()).ok_or_else(|| CardError {
                field: "description".into(),
                reason:
                    "a card needs one: give CardSettings::description, or the server's info a description"
                        .into(),
            })?;
        check_description(description)?;
        // A card is public: a secret it presets is a secret published.
        let holds_secret = |h: &&KeyValueInput| {
            h.input.is_secret == Some(true)
                && h.input.value.is_some()
                && h.variables.as_ref().is_none_or(std::collections::BTreeMap::is_empty)
        };
        if let Some(header) = self.headers.iter().find(holds_secret) {
            return Err(CardError {
                field: format!("header {}", header.name),
                reason: "is secret and has a value: a card is public, so it may describe a secret \
                         header (with {variables} for the person to fill) but never hold one"
                    .into(),
            });
        }
        compose(self, info, versions, "https://localhost/mcp").validate()
    }
}

/// The card of a server introduced as `info`, serving `versions`, its endpoint at `url` unless
/// `settings` name a public URL.
fn compose(
    settings: &CardSettings,
    info: &Implementation,
    versions: &ServerVersions,
    url: &str,
) -> ServerCard {
    let url = settings.public_url.as_deref().unwrap_or(url);
    let mut remote = Remote::streamable_http(url, versions.all().iter().map(ToString::to_string).collect());
    remote.headers = (!settings.headers.is_empty()).then(|| settings.headers.clone());
    let description = settings.description.as_ref().or(info.description.as_ref());
    let mut card = ServerCard::new(&settings.name, &info.version, description.cloned().unwrap_or_default());
    card.title.clone_from(&info.title);
    card.website_url.clone_from(&info.website_url);
    card.icons.clone_from(&info.icons);
    card.repository.clone_from(&settings.repository);
    card.meta.clone_from(&settings.meta);
    card.remotes = Some(vec![remote]);
    card
}

impl Server {
    /// The settings of the server's card; `None` when it serves none.
    pub fn card_settings(&self) -> Option<&CardSettings> {
        self.inner.card.as_ref()
    }

    /// The server's card, its Streamable HTTP endpoint at `endpoint_url` unless the settings
    /// name a public URL; `None` when it serves none.
    pub fn card(&self, endpoint_url: &str) -> Option<ServerCard> {
        let settings = self.inner.card.as_ref()?;
        Some(compose(settings, &self.inner.info, &self.inner.versions, endpoint_url))
    }
}
