//! The reference servers that mirror the official MCP servers (`time`; `memory`, `fetch` and
//! `git` as they land), end to end: the real `modelctx serve NAME` spawned over stdio in both
//! eras and served over Streamable HTTP on 127.0.0.1, driven by modelctx's client and CLI. The
//! official Python SDK client drives them too (interop/python/test_reference_servers.py).

mod support;

use std::process::{Command, Stdio};

use modelctx::client::{Client, ClientOptions, EraMode, StdioCommand};
use modelctx::protocol::ProtocolVersion;
use modelctx::protocol::model::{CallToolResult, Tool};
use modelctx::protocol::types::Implementation;
use serde_json::{Value, json};
use support::http::HttpServer;
use support::{WAIT, run_bounded};

const BIN: &str = env!("CARGO_BIN_EXE_modelctx");

fn serve(args: &[&str]) -> StdioCommand {
    StdioCommand::new(BIN).args(["serve"].iter().chain(args))
}

fn options(mode: EraMode) -> ClientOptions {
    ClientOptions { mode, ..ClientOptions::new(Implementation::new("reference-servers-test", "1")) }
}

/// Both eras over stdio: (mode, the version it must settle on).
const ERAS: [(EraMode, ProtocolVersion); 2] =
    [(EraMode::Auto, ProtocolVersion::V2026_07_28), (EraMode::Legacy, ProtocolVersion::V2025_11_25)];

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// The tool's required arguments, sorted.
fn required(tool: &Tool) -> Vec<&str> {
    let mut names: Vec<&str> = tool.input_schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    names.sort_unstable();
    names
}

/// The text of a result's first content block.
fn text(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().expect("a text block").to_owned()
}

/// A successful result's structured content, which its text repeats.
fn structured(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "a tool error: {}", text(result));
    let value = result.structured_content.clone().expect("structured content");
    assert_eq!(serde_json::from_str::<Value>(&text(result)).unwrap(), value, "the text holds the same JSON");
    value
}

/// An ISO 8601 date and time to the second with a numeric offset: `2026-12-01T18:30:00+01:00`.
fn is_iso_with_offset(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 25
        && text.is_char_boundary(19)
        && matches!(bytes[19], b'+' | b'-')
        && bytes[10] == b'T'
        && text[..19]
            .bytes()
            .enumerate()
            .all(|(i, b)| matches!(i, 4 | 7 | 10 | 13 | 16) || b.is_ascii_digit())
}

#[tokio::test]
async fn time_offers_the_official_tools_in_both_eras() {
    for (mode, version) in ERAS {
        let client = Client::spawn(&serve(&["time", "--local-timezone", "Europe/Paris"]), options(mode))
            .await
            .unwrap();
        assert_eq!(client.server().version, version, "{mode:?}");
        let tools = client.list_tools().await.unwrap();
        let current = tool(&tools, "get_current_time");
        assert_eq!(required(current), ["timezone"]);
        let description = current.input_schema["properties"]["timezone"]["description"].as_str().unwrap();
        assert!(description.contains("Use 'Europe/Paris' as local timezone"), "{description}");
        assert_eq!(required(tool(&tools, "convert_time")), ["source_timezone", "target_timezone", "time"]);
        assert!(tools.iter().all(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)));

        let now = structured(
            &client.call_tool("get_current_time", json!({"timezone": "Asia/Tokyo"})).await.unwrap(),
        );
        assert_eq!(now["timezone"], "Asia/Tokyo");
        let datetime = now["datetime"].as_str().unwrap();
        assert!(is_iso_with_offset(datetime) && datetime.ends_with("+09:00"), "{datetime}");
        assert_eq!(now["is_dst"], false, "Japan keeps no daylight saving time");

        let converted = structured(
            &client
                .call_tool(
                    "convert_time",
                    json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Kathmandu"}),
                )
                .await
                .unwrap(),
        );
        assert!(
            converted["source"]["datetime"].as_str().unwrap().ends_with("T12:00:00+00:00"),
            "{converted}"
        );
        assert!(
            converted["target"]["datetime"].as_str().unwrap().ends_with("T17:45:00+05:45"),
            "{converted}"
        );
        assert_eq!(converted["time_difference"], "+5.75h");

        let unknown =
            client.call_tool("get_current_time", json!({"timezone": "Mars/Olympus"})).await.unwrap();
        assert_eq!(unknown.is_error, Some(true));
        assert!(text(&unknown).starts_with("Invalid timezone: 'Mars/Olympus'"), "{}", text(&unknown));
        let late = json!({"source_timezone": "UTC", "time": "25:00", "target_timezone": "UTC"});
        let refused = client.call_tool("convert_time", late).await.unwrap();
        assert_eq!(
            (refused.is_error, text(&refused).as_str()),
            (Some(true), "Invalid time format. Expected HH:MM [24-hour format]")
        );
        client.close().await;
    }
}

#[tokio::test]
async fn time_serves_streamable_http() {
    let mut command = Command::new(BIN);
    command.args(["serve", "time", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
    let server = HttpServer::start(command);
    let client =
        Client::connect_http(&server.url(), Default::default(), options(EraMode::Auto)).await.unwrap();
    let converted = client
        .call_tool("convert_time", json!({"source_timezone": "Europe/London", "time": "9:30", "target_timezone": "America/New_York"}))
        .await
        .unwrap();
    assert_eq!(structured(&converted)["time_difference"], "-5.0h", "the same offsets all year round");
}

#[test]
fn time_refuses_an_unknown_local_zone_and_the_cli_calls_its_tools() {
    let mut refused = Command::new(BIN);
    refused.args(["serve", "time", "--local-timezone", "Nowhere/At-All"]).stdin(Stdio::null());
    let output = run_bounded(refused, WAIT);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--local-timezone: Invalid timezone: 'Nowhere/At-All'"), "{stderr}");

    let mut call = Command::new(BIN);
    call.args(["tools", "call", "get_current_time", "timezone=UTC", "--", BIN, "serve", "time"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    let output = run_bounded(call, WAIT);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("\"timezone\":\"UTC\"") && stdout.contains("+00:00"), "{stdout}");
}

/// The official memory server's tools, in the order it lists them.
const MEMORY_TOOLS: [&str; 9] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
];

async fn call(client: &Client, name: &str, arguments: Value) -> Value {
    structured(&client.call_tool(name, arguments).await.unwrap())
}

/// `modelctx serve memory` on a fresh database, spawned over stdio; the folder holding the
/// database lives as long as it is kept.
async fn memory(mode: EraMode) -> (tempfile::TempDir, Client) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("memory.db");
    let client =
        Client::spawn(&serve(&["memory", "--db", db.to_str().unwrap()]), options(mode)).await.unwrap();
    (dir, client)
}

#[tokio::test]
async fn memory_offers_the_official_tools_in_both_eras() {
    for (mode, version) in ERAS {
        let (_dir, client) = memory(mode).await;
        assert_eq!(client.server().version, version, "{mode:?}");
        let tools = client.list_tools().await.unwrap();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        let mut official = MEMORY_TOOLS.to_vec();
        names.sort_unstable();
        official.sort_unstable();
        assert_eq!(names, official);
        assert_eq!(required(tool(&tools, "delete_entities")), ["entityNames"]);
        assert_eq!(required(tool(&tools, "add_observations")), ["observations"]);
        let schema = serde_json::to_string(&tool(&tools, "create_entities").input_schema).unwrap();
        assert!(schema.contains("\"entityType\"") && schema.contains("\"observations\""), "{schema}");

        let ada = json!({"name": "Ada", "entityType": "person", "observations": ["Wrote the first program"]});
        let engine = json!({"name": "Engine", "entityType": "machine", "observations": []});
        let created = call(&client, "create_entities", json!({"entities": [ada, engine]})).await;
        assert_eq!(created["entities"].as_array().unwrap().len(), 2, "{created}");
        let again = call(&client, "create_entities", json!({"entities": [ada]})).await;
        assert_eq!(again, json!({"entities": []}), "an existing name is passed over");
        let knows = json!({"from": "Ada", "to": "Engine", "relationType": "programmed"});
        assert_eq!(
            call(&client, "create_relations", json!({"relations": [knows]})).await["relations"][0],
            knows
        );
        let added = call(
            &client,
            "add_observations",
            json!({"observations": [
            {"entityName": "Engine", "contents": ["Analytical", "Analytical"]}]}),
        )
        .await;
        assert_eq!(
            added,
            json!({"results": [{"entityName": "Engine", "addedObservations": ["Analytical"]}]})
        );

        let found = call(&client, "search_nodes", json!({"query": "FIRST PROGRAM"})).await;
        assert_eq!(found["entities"].as_array().unwrap().len(), 1, "{found}");
        assert_eq!(found["entities"][0]["name"], "Ada");
        assert_eq!(found["relations"], json!([knows]), "a relation with either end found");
        let opened = call(&client, "open_nodes", json!({"names": ["Engine", "Nobody"]})).await;
        assert_eq!(opened["entities"][0]["observations"], json!(["Analytical"]), "{opened}");

        let missing = client
            .call_tool(
                "add_observations",
                json!({"observations": [{"entityName": "Nobody", "contents": ["x"]}]}),
            )
            .await
            .unwrap();
        assert_eq!(
            (missing.is_error, text(&missing).as_str()),
            (Some(true), "Entity with name Nobody not found")
        );
        let deleted = call(&client, "delete_entities", json!({"entityNames": ["Ada"]})).await;
        assert_eq!(deleted, json!({"success": true, "message": "Entities deleted successfully"}));
        let graph = call(&client, "read_graph", json!({})).await;
        assert_eq!(graph["relations"], json!([]), "Ada's relation went with her: {graph}");
        assert_eq!(graph["entities"].as_array().unwrap().len(), 1);
        let resource = client.read_resource("memory://knowledge-graph").await.unwrap();
        let read: Value =
            serde_json::from_str(serde_json::to_value(&resource).unwrap()[0]["text"].as_str().unwrap())
                .unwrap();
        assert_eq!(read, graph, "the resource holds the graph");
        client.close().await;
    }
}

/// A subscriber of the graph resource is told of each change, in both eras.
#[tokio::test]
async fn memory_tells_subscribers_the_graph_changed() {
    use futures::StreamExt;
    use modelctx::protocol::v2026::SubscriptionFilter;
    for (mode, _) in ERAS {
        let (_dir, client) = memory(mode).await;
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec!["memory://knowledge-graph".into()]),
            ..SubscriptionFilter::default()
        };
        let mut changes = Box::pin(client.listen(filter).await.unwrap());
        call(
            &client,
            "create_entities",
            json!({"entities": [{"name": "N", "entityType": "t", "observations": []}]}),
        )
        .await;
        let note =
            tokio::time::timeout(WAIT, changes.next()).await.expect("a change in time").expect("a change");
        assert_eq!(note.method, "notifications/resources/updated", "{mode:?}");
        assert_eq!(note.params.unwrap()["uri"], "memory://knowledge-graph");
    }
}

/// Many clients of one HTTP server write at once and every write is kept; a second server
/// process on the same database file sees them.
#[tokio::test]
async fn memory_is_shared_by_concurrent_clients_and_processes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("memory.db");
    let mut command = Command::new(BIN);
    command
        .args(["serve", "memory", "--db", db.to_str().unwrap(), "--http", "127.0.0.1:0"])
        .stdin(Stdio::null());
    let server = HttpServer::start(command);
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let url = server.url();
            tokio::spawn(async move {
                let client =
                    Client::connect_http(&url, Default::default(), options(EraMode::Auto)).await.unwrap();
                for n in 0..10 {
                    let entity =
                        json!({"name": format!("e{writer}-{n}"), "entityType": "t", "observations": ["o"]});
                    let created = call(&client, "create_entities", json!({"entities": [entity]})).await;
                    assert_eq!(created["entities"].as_array().unwrap().len(), 1, "{created}");
                }
            })
        })
        .collect();
    for writer in writers {
        tokio::time::timeout(WAIT, writer).await.expect("the writers finish in time").unwrap();
    }
    let other = Client::spawn(&serve(&["memory", "--db", db.to_str().unwrap()]), options(EraMode::Legacy))
        .await
        .unwrap();
    let graph = call(&other, "read_graph", json!({})).await;
    assert_eq!(
        graph["entities"].as_array().unwrap().len(),
        80,
        "every write is kept and seen by the other process"
    );
}

#[test]
fn memory_refuses_a_database_it_cannot_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut refused = Command::new(BIN);
    refused.args(["serve", "memory", "--db", dir.path().to_str().unwrap()]).stdin(Stdio::null());
    let output = run_bounded(refused, WAIT);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the memory server cannot start"), "{stderr}");
}

/// The official server's `memory.jsonl` moves over with `--import`: its graph is served.
#[tokio::test]
async fn memory_imports_the_official_servers_file() {
    let dir = tempfile::tempdir().unwrap();
    let (db, jsonl) = (dir.path().join("memory.db"), dir.path().join("memory.jsonl"));
    std::fs::write(
        &jsonl,
        concat!(
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["x"]}"#,
            "\n",
            r#"{"type":"relation","from":"Ada","to":"Bob","relationType":"knows"}"#,
        ),
    )
    .unwrap();
    let args = ["memory", "--db", db.to_str().unwrap(), "--import", jsonl.to_str().unwrap()];
    let client = Client::spawn(&serve(&args), options(EraMode::Auto)).await.unwrap();
    let graph = call(&client, "read_graph", json!({})).await;
    assert_eq!(graph["entities"][0]["name"], "Ada", "{graph}");
    assert_eq!(graph["relations"][0]["to"], "Bob", "{graph}");
}
