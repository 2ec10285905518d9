//! `--experimental`: the draft extensions of the next revision, off unless asked for at run
//! time (docs/extensions.md names the drafts and what each serves).

use std::time::Duration;

use clap::Args;
use modelctx::protocol::server_card::Repository;
use modelctx::server::CardSettings;
use modelctx::server::events::{EventDef, EventOptions, Events};
use serde_json::json;

/// The namespace of the cards of the servers this binary serves (reverse-DNS of where the
/// project lives).
const CARD_NAMESPACE: &str = "io.github.modelctx";

/// How often `clock.tick` happens.
const TICK: Duration = Duration::from_secs(1);

/// The events every bundled server offers with `--experimental` (SEP-3415): `clock.tick`, once a
/// second (`{"n", "atMs"}`), its arguments' `every` selecting every Nth; delivered by poll and
/// push. Call it on the serving runtime: the ticking task is spawned there.
pub(crate) fn clock_events() -> Events {
    let schema = json!({"type": "object", "properties": {"every": {"type": "integer", "minimum": 1,
        "description": "Only every Nth tick (default 1)"}}});
    let payload =
        json!({"type": "object", "properties": {"n": {"type": "integer"}, "atMs": {"type": "integer"}}});
    let tick = EventDef::new("clock.tick", "A tick of the server's clock, once a second")
        .input_schema(schema.as_object().cloned().unwrap_or_default())
        .payload_schema(payload.as_object().cloned().unwrap_or_default())
        .matching(|arguments, data| {
            let every = arguments.get("every").and_then(serde_json::Value::as_u64).unwrap_or(1).max(1);
            data.get("n").and_then(serde_json::Value::as_u64).is_some_and(|n| n % every == 0)
        });
    let events = Events::new(EventOptions::default()).event(tick);
    let ticking = events.clone();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move { tick_forever(ticking).await });
    }
    events
}

async fn tick_forever(events: Events) {
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    for n in 1u64.. {
        ticks.tick().await;
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        events.emit("clock.tick", json!({"n": n, "atMs": at}));
    }
}

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
