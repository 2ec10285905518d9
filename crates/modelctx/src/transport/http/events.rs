//! Resumable request streams of legacy sessions: every event a request's stream carries gets
//! an id `{stream}-{n}` unique in the session (HTTP-53) and is logged in the [`EventStore`],
//! so a client whose stream broke — or that the server released — can resume it with a GET
//! carrying `Last-Event-ID` and receive exactly what it missed of *that* stream (HTTP-54,
//! HTTP-55). The live side — streams whose handler runs on this instance and the client
//! attached to each — is [`super::live`].

use bytes::Bytes;
use tokio::sync::mpsc;

use super::live::LiveFrame;
use super::session::Session;
use super::store::EventStore;
use crate::server::outgoing::Outgoing;

/// The SSE frame of event `event` of `stream`.
fn frame(stream: u64, event: u64, data: &str) -> Bytes {
    Bytes::from(format!("id: {stream}-{event}\nevent: message\ndata: {data}\n\n"))
}

/// Logs `message` as event `event` of `stream` and delivers it to the live client, if any.
pub(super) async fn record(
    store: &dyn EventStore,
    session: &Session,
    stream: u64,
    event: u64,
    message: &Outgoing,
) {
    let data = message.to_json();
    if let Err(e) = store.append(&session.id, stream, event, data.clone()).await {
        tracing::warn!(error = %e, "an event could not be logged; a resume will miss it");
    }
    session.live.send(stream, event, frame(stream, event, &data));
}

/// Marks `stream` complete: its answer is logged; live delivery ends.
pub(super) async fn finish(store: &dyn EventStore, session: &Session, stream: u64) {
    if let Err(e) = store.finish(&session.id, stream).await {
        tracing::warn!(error = %e, "the end of a stream could not be logged");
    }
    session.live.end(stream);
}

/// What a resuming client gets: the events it missed, then — when the stream runs on this
/// instance — the live events numbered after `after`.
pub(super) struct Resumed {
    pub(super) missed: Vec<Bytes>,
    pub(super) live: Option<mpsc::Receiver<LiveFrame>>,
    pub(super) after: u64,
}

/// Resumes after the event `last_event_id` (`{stream}-{n}`); `None` when the id names no
/// stream of this session.
pub(super) async fn resume(
    store: &dyn EventStore,
    session: &Session,
    last_event_id: &str,
) -> Option<Resumed> {
    let (stream, event) = last_event_id.split_once('-')?;
    let (stream, event): (u64, u64) = (stream.parse().ok()?, event.parse().ok()?);
    // Attached before reading the log, so no event falls between the two; the numbers
    // skip what the log already gave.
    let live = session.live.attach(stream);
    let replay = match store.replay(&session.id, stream, event).await {
        Ok(Some(replay)) => replay,
        Ok(None) if live.is_some() => Default::default(),
        Ok(None) => return None,
        Err(e) => {
            tracing::warn!(error = %e, "the event log could not be read; resuming without it");
            Default::default()
        }
    };
    let after = replay.events.last().map_or(event, |(n, _)| *n);
    let missed = replay.events.iter().map(|(n, data)| frame(stream, *n, data)).collect();
    let live = if replay.finished { None } else { live };
    Some(Resumed { missed, live, after })
}
