//! HTTP over stdio (experimental; the transports working group's `stdio-v2`): the client and
//! the server in process, HTTP/2 over an in-memory pipe pair as over a child's stdin and
//! stdout. Each test is named after what the working group's channel decision asks a
//! prototype to show (docs/extensions.md): concurrent calls beside long-lived streams on one
//! pipe pair, server-initiated messages, cancellation by stream reset, the end of the pipe;
//! the real processes (startup selection, no port, stderr) are tested with the binary.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt as _;
use modelctx::client::{Client, ClientError, ClientHandlers, ClientOptions};
use modelctx::protocol::era::ServerVersions;
use modelctx::protocol::v2026::SubscriptionFilter;
use modelctx::protocol::{Era, Method, ProtocolVersion};
use modelctx::server::{Args, RequestContext, ResourceDef, ResourceRequest, Server, ToolDef, text_contents};
use modelctx::transport::http::HttpOptions;
use modelctx::transport::stdio_v2::serve_stdio_v2_on;
use modelctx_protocol::http_lists::ListKind;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::client::options;
use crate::common::within;

/// Both eras: the server's versions and the era the client settles.
fn eras() -> [(ServerVersions, Era); 2] {
    [
        (ServerVersions::default(), Era::Modern),
        (ServerVersions::new([ProtocolVersion::V2025_11_25]), Era::Legacy),
    ]
}

/// `echo`'s arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    message: String,
}

/// A server of `echo`, `stall` (waits 30 s, counted in `abandoned` when dropped), `ask` (an
/// elicitation), a subscribable resource, and its lists over GET.
fn server(versions: ServerVersions, abandoned: Arc<AtomicUsize>) -> Server {
    Server::builder("stdio-v2-test", "1")
        .versions(versions)
        .tool(ToolDef::new("echo", |Args(args): Args<EchoArgs>| async move { args.message }))
        .tool(crate::common::stall(abandoned))
        .tool(ToolDef::new("ask", |ctx: RequestContext| async move {
            let answer = ctx.elicit(crate::common::name_form()).await?;
            Ok::<_, modelctx::server::InputError>(
                serde_json::to_value(&answer.content).unwrap()["name"].to_string(),
            )
        }))
        .resource(ResourceDef::new("test://note", "note", |request: ResourceRequest| async move {
            Ok(vec![text_contents(request.uri, None, "v1")])
        }))
        .lists_over_get()
        .build()
        .unwrap()
}

/// A client connected to `server` by HTTP/2 over an in-memory pipe pair; `stop` ends the
/// server's side.
async fn connect(
    server: Server,
    options: ClientOptions,
    stop: CancellationToken,
) -> Result<Client, ClientError> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        serve_stdio_v2_on(server, HttpOptions::default(), read, write, stop.cancelled_owned()).await;
    });
    let (read, write) = tokio::io::split(client_end);
    Client::connect_stdio_v2(read, write, options).await
}

fn echoed(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

/// "Support concurrent requests and server-initiated messages over one subprocess connection,
/// with responses able to progress independently alongside long-lived streams": with a
/// subscription held open and a call that does not end, fifty calls at once are all answered,
/// and a change still reaches the subscription — in both eras.
#[tokio::test]
async fn concurrent_calls_progress_beside_long_lived_streams_on_one_pipe_pair() {
    for (versions, era) in eras() {
        let served = server(versions, Arc::default());
        let client = connect(served.clone(), options(), CancellationToken::new()).await.unwrap();
        assert_eq!((client.era(), client.transport()), (era, "stdio-v2"));
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec!["test://note".into()]),
            ..Default::default()
        };
        let changes = within(client.listen(filter)).await.unwrap();
        futures::pin_mut!(changes);
        let stalled = client.call_tool("stall", json!({}));
        let calls =
            (0..50).map(|n| {
                let client = &client;
                async move {
                    echoed(&client.call_tool("echo", json!({"message": format!("m{n}")})).await.unwrap())
                }
            });
        let answers = tokio::select! {
            answers = within(futures::future::join_all(calls)) => answers,
            _ = stalled => panic!("the stalled call ended"),
        };
        assert_eq!(answers, (0..50).map(|n| format!("m{n}")).collect::<Vec<_>>(), "{era:?}");
        served.resource_updated("test://note");
        let change = within(changes.next()).await.expect("the subscription is still open");
        assert_eq!(change.method, Method::ResourceUpdated, "{era:?}");
    }
}

/// "Server-initiated messages": the server's elicitation reaches the client and its answer the
/// tool — a live request on the call's stream in 2025-11-25, an input-required round in
/// 2026-07-28.
#[tokio::test]
async fn server_initiated_requests_reach_the_client_in_both_eras() {
    for (versions, era) in eras() {
        let handlers = ClientHandlers::default().on_elicit(|_| async {
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}})).unwrap()
        });
        let options = ClientOptions { handlers, ..options() };
        let client =
            connect(server(versions, Arc::default()), options, CancellationToken::new()).await.unwrap();
        let asked = within(client.call_tool("ask", json!({}))).await.unwrap();
        assert_eq!(echoed(&asked), "\"Ada\"", "{era:?}");
    }
}

/// "HTTP/2 can reset one stream with RST_STREAM while other streams continue … ending an HTTP
/// exchange does not by itself guarantee that application work stops": a call the client
/// stops waiting for is stopped on the server (in 2026-07-28 by the stream's reset, in
/// 2025-11-25 by the `notifications/cancelled` the client sends), and the connection serves on.
#[tokio::test]
async fn a_call_given_up_is_stopped_on_the_server_and_the_connection_serves_on() {
    for (versions, era) in eras() {
        let abandoned = Arc::new(AtomicUsize::new(0));
        let client =
            connect(server(versions, abandoned.clone()), options(), CancellationToken::new()).await.unwrap();
        let given_up =
            tokio::time::timeout(Duration::from_millis(200), client.call_tool("stall", json!({}))).await;
        assert!(given_up.is_err(), "the call stalls");
        let stopped = async {
            while abandoned.load(Ordering::SeqCst) == 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        within(stopped).await;
        let echo = within(client.call_tool("echo", json!({"message": "still here"}))).await.unwrap();
        assert_eq!(echoed(&echo), "still here", "{era:?}");
    }
}

/// "Define and test … EOF, shutdown": when the server's side ends (its process stops), the
/// client's next request fails at once with a transport error, not a hang; and when the client
/// goes, the server's side returns.
#[tokio::test]
async fn the_end_of_either_side_ends_the_other() {
    let stop = CancellationToken::new();
    let client =
        connect(server(ServerVersions::default(), Arc::default()), options(), stop.clone()).await.unwrap();
    stop.cancel();
    let refused = within(async {
        loop {
            if let Err(error) = client.call_tool("echo", json!({"message": "hi"})).await {
                return error;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(refused.to_string().contains("over the server's stdio"), "{refused}");

    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let served = tokio::spawn(serve_stdio_v2_on(
        server(ServerVersions::default(), Arc::default()),
        HttpOptions::default(),
        read,
        write,
        std::future::pending(),
    ));
    let (read, write) = tokio::io::split(client_end);
    let client = Client::connect_stdio_v2(read, write, options()).await.unwrap();
    client.ping().await.unwrap();
    drop(client);
    within(served).await.unwrap();
}

/// "Preserve the same protocol behavior across subprocess and network connections": what the
/// HTTP endpoint offers beyond JSON-RPC works through the pipe too — a list over GET, then
/// revalidated (`304`).
#[tokio::test]
async fn lists_over_get_work_through_the_pipe() {
    let client =
        connect(server(ServerVersions::default(), Arc::default()), options(), CancellationToken::new())
            .await
            .unwrap();
    let first = within(client.list_over_get(ListKind::Tools, None)).await.unwrap();
    let names: Vec<_> = first.result["tools"].as_array().unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("ask"), json!("echo"), json!("stall")]);
    assert!(!first.revalidated);
    let again = within(client.list_over_get(ListKind::Tools, None)).await.unwrap();
    assert!(again.revalidated, "the kept page was revalidated with If-None-Match");
}
