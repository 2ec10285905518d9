//! `--experimental`: the draft extensions of the next revision, off unless asked for at run
//! time (docs/extensions.md names the drafts and what each serves).

use clap::Args;
use modelctx::protocol::server_card::Repository;
use modelctx::server::CardSettings;

/// The namespace of the cards of the servers this binary serves (reverse-DNS of where the
/// project lives).
const CARD_NAMESPACE: &str = "io.github.modelctx";

/// `--experimental` and what it takes.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct ExperimentalArgs {
    /// Turn on the draft extensions of the next revision (experimental: their wire follows
    /// drafts that may change): definition tags on lists and server/discover, known tags
    /// checked on calls; with --http also a server card at /mcp/server-card (and at each
    /// /mcp/NAME/server-card), an AI Catalog of them at /.well-known/ai-catalog.json, and the
    /// lists over GET (/mcp?mcp_list=tools, with ETag and 304).
    #[arg(long, global = true)]
    pub experimental: bool,
    /// The endpoint's URL as clients reach it (https://mcp.example.com/mcp), for the server
    /// card; by default the URL the card is asked under (its Host header).
    #[arg(long, value_name = "URL", requires = "experimental", global = true)]
    pub public_url: Option<String>,
}

impl ExperimentalArgs {
    /// The card of the server `name` (`everything`), described as its `serverInfo` is, when
    /// `--experimental` is on.
    pub(crate) fn card(&self, name: &str) -> Option<CardSettings> {
        if !self.experimental {
            return None;
        }
        let repository = Repository {
            url: env!("CARGO_PKG_REPOSITORY").to_owned(),
            source: "github".into(),
            subfolder: None,
            id: None,
        };
        let card = CardSettings::new(format!("{CARD_NAMESPACE}/{name}")).repository(repository);
        Some(match &self.public_url {
            Some(url) => card.public_url(url.clone()),
            None => card,
        })
    }
}
