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
