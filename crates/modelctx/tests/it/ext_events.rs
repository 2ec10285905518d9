//! Events (experimental; SEP-3415 at `5eb68628`): a server's event types listed, polled and
//! pushed, to our client in process (over a pipe, as on stdio) and over real HTTP. Each test
//! is named after the draft's rule it proves (docs/extensions.md).

use std::time::Duration;

use futures::StreamExt as _;
use modelctx::client::{ClientOptions, EventStreamItem};
use modelctx::protocol::era::ServerVersions;
use modelctx::protocol::events::{DeliveryMode, EXTENSION_ID, SubscriptionParams, codes};
use modelctx::protocol::{JsonObject, ProtocolVersion};
use modelctx::server::events::{EventDef, EventOptions, Events};
use modelctx::server::{Limits, Server, ServerOptions, ToolDef};
use modelctx::transport::http::HttpOptions;
use serde_json::{Value, json};

use crate::common::client::{connect, options};
use crate::common::within;

/// `build.finished`, its arguments selecting a `branch` (all branches without one).
fn builds() -> EventDef {
    EventDef::new("build.finished", "A CI build finished")
        .input_schema(
            json!({"type": "object", "properties": {"branch": {"type": "string"}}})
                .as_object()
                .cloned()
                .unwrap(),
        )
        .matching(|arguments: &JsonObject, data: &Value| {
            arguments.get("branch").is_none_or(|branch| data.get("branch") == Some(branch))
        })
}

fn hub(options: EventOptions) -> Events {
    Events::new(options)
        .event(builds())
        .event(EventDef::new("alarm", "Polled only").delivery(vec![DeliveryMode::Poll]))
}

fn server(events: &Events) -> Server {
    Server::builder("events", "1")
        .tool(ToolDef::new("noop", || async { "ok" }))
        .events(events.clone())
        .build()
        .unwrap()
}

fn subscription(arguments: Value, cursor: Option<String>) -> SubscriptionParams {
    SubscriptionParams {
        name: "build.finished".into(),
        arguments: arguments.as_object().cloned().unwrap_or_default(),
        cursor,
        max_age_ms: None,
        max_events: None,
    }
}

fn emit(events: &Events, branch: &str, n: u64) {
    events.emit("build.finished", json!({"branch": branch, "n": n}));
}

fn numbers(events: &[modelctx::protocol::events::EventOccurrence]) -> Vec<u64> {
    events.iter().map(|e| e.data["n"].as_u64().unwrap()).collect()
}

/// "A server advertises event support … `listChanged`"; "`events/list` … `delivery` … `inputSchema`";
/// "This extension is defined for protocol revision 2026-07-28": a 2025-11-25 session has no
/// `events/*` methods (`-32601`).
#[tokio::test]
async fn event_types_are_listed_and_declared_in_2026_07_28_only() {
    let events = hub(EventOptions::default());
    let client = connect(server(&events), options()).await.unwrap();
    let declared = client.server().capabilities.extensions.as_ref().unwrap();
    assert_eq!(declared[EXTENSION_ID], json!({"listChanged": true}).as_object().cloned().unwrap());
    let types = client.list_events().await.unwrap();
    let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["build.finished", "alarm"]);
    assert_eq!(types[0].delivery, [DeliveryMode::Poll, DeliveryMode::Push]);
    assert_eq!(types[0].input_schema["properties"]["branch"]["type"], "string");

    let legacy = Server::builder("events", "1")
        .versions(ServerVersions::new([ProtocolVersion::V2025_11_25]))
        .events(events);
    let client = connect(legacy.build().unwrap(), options()).await.unwrap();
    let refused = client.request("events/list", json!({})).await.unwrap_err();
    assert_eq!(refused.rpc_error().unwrap().code.0, -32601, "{refused}");
}

/// "`null` means start from now: the server returns no events and a fresh cursor"; then each
/// poll returns what happened since its cursor that the arguments select, in order, and a
/// cursor past everything it looked at.
#[tokio::test]
async fn a_poll_starts_from_now_then_returns_what_its_arguments_select_since_its_cursor() {
    let events = hub(EventOptions::default());
    emit(&events, "main", 0);
    let client = connect(server(&events), options()).await.unwrap();
    let first = client.poll_events(&subscription(json!({"branch": "main"}), None)).await.unwrap();
    assert!(first.events.is_empty() && !first.truncated && !first.has_more, "{first:?}");
    assert_eq!(first.next_poll_ms, 5000);
    for (n, branch) in [(1, "main"), (2, "dev"), (3, "main")] {
        emit(&events, branch, n);
    }
    let since =
        client.poll_events(&subscription(json!({"branch": "main"}), first.cursor.clone())).await.unwrap();
    assert_eq!(numbers(&since.events), [1, 3]);
    assert!(since.events.iter().all(|e| e.cursor.is_none()), "poll carries the cursor at the response level");
    let again =
        client.poll_events(&subscription(json!({"branch": "main"}), since.cursor.clone())).await.unwrap();
    assert!(again.events.is_empty(), "nothing since: {again:?}");
    assert_eq!(again.cursor, since.cursor, "the cursor had already passed the dev build");
}

/// "If more events are available than the cap, the server returns a partial batch with an
/// intermediate cursor and sets `hasMore: true`."
#[tokio::test]
async fn max_events_returns_partial_batches_with_has_more() {
    let events = hub(EventOptions::default());
    let client = connect(server(&events), options()).await.unwrap();
    let mut cursor = client.poll_events(&subscription(json!({}), None)).await.unwrap().cursor;
    (1..=5).for_each(|n| emit(&events, "main", n));
    let mut batches = Vec::new();
    loop {
        let params = SubscriptionParams { max_events: Some(2), ..subscription(json!({}), cursor.clone()) };
        let batch = client.poll_events(&params).await.unwrap();
        batches.push((numbers(&batch.events), batch.has_more));
        cursor = batch.cursor;
        if !batch.has_more {
            break;
        }
    }
    assert_eq!(batches, [(vec![1, 2], true), (vec![3, 4], true), (vec![5], false)]);
}

/// "`truncated: true` is the single signal that the server started delivery from a position
/// later than the cursor the client supplied": a cursor the log has dropped resumes from what is
/// kept, one of another run from now, both `truncated`; "`maxAgeMs` … replay from whichever is
/// later"; a cursor that is not the server's is `InvalidParams`.
#[tokio::test]
async fn lost_positions_resume_truncated_and_max_age_bounds_replay() {
    let events = hub(EventOptions { log: 3, ..EventOptions::default() });
    let client = connect(server(&events), options()).await.unwrap();
    let start = client.poll_events(&subscription(json!({}), None)).await.unwrap().cursor;
    (1..=5).for_each(|n| emit(&events, "main", n));
    let resumed = client.poll_events(&subscription(json!({}), start.clone())).await.unwrap();
    assert_eq!((numbers(&resumed.events), resumed.truncated), (vec![3, 4, 5], true));
    let foreign = client.poll_events(&subscription(json!({}), Some("0badc0ffee00-4".into()))).await.unwrap();
    assert!(foreign.events.is_empty() && foreign.truncated, "{foreign:?}");
    let bad = client.poll_events(&subscription(json!({}), Some("nonsense".into()))).await.unwrap_err();
    assert_eq!(bad.rpc_error().unwrap().code.0, -32602, "{bad}");

    let cursor = resumed.cursor;
    emit(&events, "main", 6);
    tokio::time::sleep(Duration::from_millis(50)).await;
    emit(&events, "main", 7);
    let bounded = SubscriptionParams { max_age_ms: Some(40), ..subscription(json!({}), cursor) };
    let bounded = client.poll_events(&bounded).await.unwrap();
    assert_eq!((numbers(&bounded.events), bounded.truncated), (vec![7], true));
}

/// "`NotFound` … an unknown event name"; "`Unsupported` … a delivery mode that the event type
/// does not offer"; arguments against the `inputSchema`; webhook delivery is not offered by
/// this server.
#[tokio::test]
async fn unknown_types_and_modes_not_offered_are_refused_with_the_drafts_codes() {
    let events = hub(EventOptions::default());
    let client = connect(server(&events), options()).await.unwrap();
    let unknown = SubscriptionParams { name: "nope".into(), ..subscription(json!({}), None) };
    let refused = client.poll_events(&unknown).await.unwrap_err();
    let refused = refused.rpc_error().unwrap();
    assert_eq!((refused.code.0, refused.data.clone()), (codes::NOT_FOUND, Some(json!({"kind": "event"}))));
    let alarm = SubscriptionParams { name: "alarm".into(), ..subscription(json!({}), None) };
    let push = client.stream_events(&alarm).await.err().unwrap();
    assert_eq!(push.rpc_error().unwrap().code.0, codes::UNSUPPORTED, "{push}");
    // "InvalidParams: the arguments do not match the event's inputSchema".
    let mistyped = client.poll_events(&subscription(json!({"branch": 5}), None)).await.unwrap_err();
    let mistyped = mistyped.rpc_error().unwrap();
    assert!(mistyped.code.0 == -32602 && mistyped.message.contains("/branch"), "{mistyped:?}");
    let webhook = client.request("events/subscribe", json!({"name": "build.finished"})).await.unwrap_err();
    assert_eq!(
        webhook.rpc_error().unwrap().data,
        Some(json!({"feature": "deliveryMode", "value": "webhook"}))
    );
}

/// Push: "the server confirms the subscription with `notifications/events/active`, and then
/// delivers events as notifications", each with "the subscription's position after this event";
/// what the cursor missed comes first; "the server MUST send periodic keepalive messages … the
/// heartbeat … `cursor`". Over a pipe (stdio) and over HTTP.
#[tokio::test]
async fn a_push_stream_is_active_first_then_replays_then_delivers_with_heartbeats() {
    let events = hub(EventOptions { heartbeat: Duration::from_millis(100), ..EventOptions::default() });
    let http = crate::common::http::start_serving(server(&events), HttpOptions::default()).await;
    let over_http =
        modelctx::client::Client::connect_http(&http.url, Default::default(), options()).await.unwrap();
    let over_pipe = connect(server(&events), options()).await.unwrap();
    for client in [&over_pipe, &over_http] {
        let cursor = client.poll_events(&subscription(json!({}), None)).await.unwrap().cursor;
        emit(&events, "main", 1);
        let stream =
            within(client.stream_events(&subscription(json!({"branch": "main"}), cursor))).await.unwrap();
        futures::pin_mut!(stream);
        let Some(EventStreamItem::Active(active)) = within(stream.next()).await else {
            panic!("active first")
        };
        assert_eq!(active.truncated, Some(false));
        let Some(EventStreamItem::Event(replayed)) = within(stream.next()).await else {
            panic!("the replay")
        };
        assert_eq!(replayed.data["n"], 1);
        emit(&events, "dev", 2);
        emit(&events, "main", 3);
        let Some(EventStreamItem::Event(live)) = within(stream.next()).await else { panic!("a live event") };
        assert_eq!(live.data["n"], 3, "the dev build is not this subscription's");
        assert!(live.cursor.is_some() && live.cursor != replayed.cursor);
        let Some(EventStreamItem::Heartbeat(beat)) = within(stream.next()).await else {
            panic!("a heartbeat")
        };
        assert_eq!(beat.cursor, live.cursor, "checked up to the last event");
    }
}

/// "A client MAY hold several concurrent `events/stream` requests open … demultiplexed by
/// `_meta[\"io.modelcontextprotocol/subscriptionId\"]`", and "Server SDKs MUST exempt
/// `events/stream` from any general cap on concurrent requests": three streams on a server that
/// runs one request at a time with no queue, each hearing only its own, and a call still served.
#[tokio::test]
async fn streams_are_demultiplexed_and_take_no_place_in_the_request_queue() {
    let events = hub(EventOptions::default());
    let limits = Limits { max_in_flight: 1, max_queued: 0, ..Limits::default() };
    let served = Server::builder("events", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .tool(ToolDef::new("noop", || async { "ok" }))
        .events(events.clone())
        .build()
        .unwrap();
    let client = connect(served, ClientOptions { ..options() }).await.unwrap();
    let mut streams = Vec::new();
    for branch in ["a", "b", "c"] {
        let stream =
            within(client.stream_events(&subscription(json!({"branch": branch}), None))).await.unwrap();
        let mut stream = Box::pin(stream);
        assert!(matches!(within(stream.next()).await, Some(EventStreamItem::Active(_))));
        streams.push(stream);
    }
    within(client.call_tool("noop", json!({}))).await.unwrap();
    for (n, branch) in ["c", "a", "b"].iter().enumerate() {
        emit(&events, branch, n as u64);
    }
    for (stream, branch) in streams.iter_mut().zip(["a", "b", "c"]) {
        let Some(EventStreamItem::Event(event)) = within(stream.next()).await else {
            panic!("{branch}'s event")
        };
        assert_eq!(event.data["branch"], branch);
    }
}

/// "If the set of available event types changes at runtime … a server that declared
/// `listChanged: true` sends `notifications/events/list_changed` … delivered only on a
/// `subscriptions/listen` stream, and only when the client opted in … The server echoes
/// `eventsListChanged` in `notifications/subscriptions/acknowledged`": a listener that asked
/// hears of a type added and of one removed; one that did not ask hears nothing of them.
#[tokio::test]
async fn a_listener_that_asked_hears_when_the_event_types_change() {
    use modelctx::protocol::v2026::SubscriptionFilter;
    let events = hub(EventOptions::default());
    let served = server(&events);
    let client = connect(served.clone(), options()).await.unwrap();
    let declared = client.server().capabilities.extensions.as_ref().unwrap();
    assert_eq!(declared[EXTENSION_ID]["listChanged"], true);
    let asked = SubscriptionFilter { events_list_changed: Some(true), ..SubscriptionFilter::default() };
    let changes = within(client.listen(asked)).await.unwrap();
    futures::pin_mut!(changes);
    let others = SubscriptionFilter { tools_list_changed: Some(true), ..SubscriptionFilter::default() };
    let other = within(client.listen(others)).await.unwrap();
    futures::pin_mut!(other);
    events.add(EventDef::new("deploy.started", "A deploy started"));
    let heard = within(changes.next()).await.unwrap();
    assert_eq!(heard.method.as_str(), "notifications/events/list_changed");
    assert!(events.remove("deploy.started") && !events.remove("deploy.started"));
    assert_eq!(within(changes.next()).await.unwrap().method.as_str(), "notifications/events/list_changed");
    served.add_tool(ToolDef::new("added", || async { "new" })).unwrap();
    let told = within(other.next()).await.unwrap();
    assert_eq!(
        told.method.as_str(),
        "notifications/tools/list_changed",
        "the other listener heard no event-type change"
    );
}

/// "When a server stops offering an event type … The server SHOULD end them with each mode's
/// termination signal: `notifications/events/terminated` on push streams … The error is
/// `NotFound` with `data: {"kind": "event"}` when the type was removed": a stream of a type
/// that is removed is told so, and ends.
#[tokio::test]
async fn a_stream_of_a_removed_type_is_terminated_with_not_found() {
    let events = hub(EventOptions::default());
    let client = connect(server(&events), options()).await.unwrap();
    let stream = within(client.stream_events(&subscription(json!({}), None))).await.unwrap();
    futures::pin_mut!(stream);
    assert!(matches!(within(stream.next()).await, Some(EventStreamItem::Active(_))));
    assert!(events.remove("build.finished"));
    let Some(EventStreamItem::Terminated(error)) = within(stream.next()).await else { panic!("terminated") };
    assert_eq!((error.code.0, error.data), (codes::NOT_FOUND, Some(json!({"kind": "event"}))));
    assert_eq!(within(stream.next()).await, None, "the stream ended");
}
