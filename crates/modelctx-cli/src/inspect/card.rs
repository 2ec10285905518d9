//! `modelctx discover --card` and `--catalog` (server cards, SEP-2127, experimental): a
//! server's card read before connecting, then checked against what the server says once
//! connected; or the cards a domain's AI Catalog lists.

use std::collections::BTreeMap;
use std::process::ExitCode;

use modelctx::client::cards::{CardFetcher, card_url};
use modelctx::protocol::server_card::{Disagreement, ServerCard};
use serde_json::json;

use super::exit::Failure;
use super::output::{BOLD, DIM, GREEN, OutputArgs, RED, out, print_json, shown};
use super::server::{describe_connection, print_connection};
use super::{ServerArgs, drive};

/// The arguments of `modelctx discover`.
#[derive(clap::Args)]
pub struct DiscoverArgs {
    #[command(flatten)]
    server: ServerArgs,
    /// Read the server's card first (server cards, experimental): from URL, or without one
    /// from `--url`'s `/server-card`; connect to the endpoint it names (unless --url names
    /// one) and report where the card and the live server disagree (the server wins).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    card: Option<String>,
    /// List the server cards of a domain's AI Catalog (https://example.com →
    /// /.well-known/ai-catalog.json) instead of connecting (experimental).
    #[arg(long, value_name = "ORIGIN", conflicts_with = "card")]
    catalog: Option<String>,
}

/// Runs `modelctx discover`.
pub fn run(args: &DiscoverArgs) -> ExitCode {
    let outcome = match (&args.catalog, &args.card) {
        (Some(origin), _) => crate::runtime::block_on(list_catalog(origin, args.server.output)),
        (None, Some(url)) => return discover_with_card(args, url),
        (None, None) => return super::server::run_discover(&args.server),
    };
    match outcome.and_then(|outcome| outcome) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.exit(),
    }
}

/// A fetcher for documents at `url`: public addresses only, unless `url` is itself on this
/// machine or the local network (as `modelctx login` decides).
fn fetcher_for(url: &str) -> Result<CardFetcher, Failure> {
    let parsed = url::Url::parse(url).map_err(|e| Failure::Usage(format!("{url}: {e}")))?;
    CardFetcher::new(crate::login::egress_for(&parsed)).map_err(|e| Failure::Unreachable(e.to_string()))
}

async fn list_catalog(origin: &str, output: OutputArgs) -> Result<(), Failure> {
    let found =
        fetcher_for(origin)?.catalog(origin).await.map_err(|e| Failure::Unreachable(e.to_string()))?;
    if output.json {
        let entries: Vec<_> = found
            .iter()
            .map(|entry| match &entry.card {
                Ok(card) => json!({"identifier": entry.identifier, "url": entry.url, "card": card}),
                Err(e) => json!({"identifier": entry.identifier, "url": entry.url, "error": e.to_string()}),
            })
            .collect();
        print_json(&json!({ "entries": entries }));
        return Ok(());
    }
    if found.is_empty() {
        out!("{DIM}the catalog lists no server card{DIM:#}");
    }
    for entry in &found {
        match &entry.card {
            Ok(card) => {
                out!("{BOLD}{}{BOLD:#} {}", shown(&card.name, false), shown(&card.version, false));
                out!("  {}", shown(&card.description, true));
                if let Some(remote) = card.streamable_http() {
                    out!("  {DIM}endpoint{DIM:#}  {}", shown(&remote.url, false));
                }
            }
            Err(e) => {
                out!("{RED}{}{RED:#}: {}", shown(&entry.identifier, false), shown(&e.to_string(), true))
            }
        }
    }
    Ok(())
}

/// Reads the card, connects where it says (or to --url), and reports both.
fn discover_with_card(args: &DiscoverArgs, url: &str) -> ExitCode {
    let target = &args.server.target;
    let card_at = match (url.is_empty(), &target.url) {
        (false, _) => url.to_owned(),
        (true, Some(endpoint)) => card_url(endpoint),
        (true, None) => {
            return Failure::Usage(
                "--card without a URL reads --url's card: give --card URL or --url".into(),
            )
            .exit();
        }
    };
    let card = match crate::runtime::block_on(fetch_card(&card_at)).and_then(|card| card) {
        Ok(card) => card,
        Err(failure) => return failure.exit(),
    };
    let target = match (&target.url, target.command.is_empty() && target.config.is_none()) {
        (None, true) => match endpoint_of(&card) {
            Ok(endpoint) => super::Target { url: Some(endpoint), ..target.clone() },
            Err(failure) => return failure.exit(),
        },
        _ => target.clone(),
    };
    let output = args.server.output;
    drive(&target, async |client| {
        let server = client.server();
        let disagreements = card.disagreements(server.info.as_ref(), &server.version.to_string());
        if output.json {
            print_json(&json!({
                "card": card,
                "server": describe_connection(client),
                "disagreements": disagreements,
            }));
            return Ok(());
        }
        print_card(&card, &card_at);
        out!("");
        print_connection(client);
        print_disagreements(&disagreements);
        Ok(())
    })
}

async fn fetch_card(url: &str) -> Result<ServerCard, Failure> {
    let fetched = fetcher_for(url)?.card(url).await.map_err(|e| Failure::Unreachable(e.to_string()))?;
    Ok(fetched.document)
}

/// The card's first Streamable HTTP endpoint, its variables filled from their defaults.
fn endpoint_of(card: &ServerCard) -> Result<String, Failure> {
    let remote = card.streamable_http().ok_or_else(|| {
        Failure::Usage("the card names no Streamable HTTP endpoint: give --url or a command".into())
    })?;
    remote.resolve_url(&BTreeMap::new()).map_err(|e| {
        Failure::Usage(format!(
            "the card's endpoint {}: {e}; give the URL with --url",
            shown(&remote.url, false)
        ))
    })
}

fn print_card(card: &ServerCard, url: &str) {
    out!("{BOLD}card{BOLD:#}          {DIM}{}{DIM:#}", shown(url, false));
    out!("name          {} {}", shown(&card.name, false), shown(&card.version, false));
    out!("description   {}", shown(&card.description, true));
    for remote in card.remotes.iter().flatten() {
        let versions = remote.supported_protocol_versions.as_deref().unwrap_or_default().join(", ");
        out!("endpoint      {} {DIM}({}){DIM:#}", shown(&remote.url, false), shown(&versions, false));
    }
}

fn print_disagreements(disagreements: &[Disagreement]) {
    if disagreements.is_empty() {
        out!("card          {GREEN}agrees with the live server{GREEN:#}");
        return;
    }
    for d in disagreements {
        out!(
            "card          {RED}{}{RED:#}: the card says {}, the server {} {DIM}(the server's is used){DIM:#}",
            d.field,
            shown(&d.card, false),
            shown(&d.live, false)
        );
    }
}
