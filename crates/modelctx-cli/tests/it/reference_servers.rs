//! The reference servers that mirror the official MCP servers (`time`, `memory`, `fetch`; `git`
//! as it lands), end to end: the real `modelctx serve NAME` spawned over stdio in both
//! eras and served over Streamable HTTP on 127.0.0.1, driven by modelctx's client and CLI. The
//! official Python SDK client drives them too (interop/python/test_reference_servers.py).

use modelctx_protocol::Method;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::support::http::HttpServer;
use crate::support::{WAIT, run_bounded};
use modelctx::client::{Client, ClientOptions, EraMode, StdioCommand};
use modelctx::protocol::ProtocolVersion;
use modelctx::protocol::model::{CallToolResult, Tool};
use modelctx::protocol::types::Implementation;
use serde_json::{Value, json};

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
        assert_eq!(note.method, Method::ResourceUpdated, "{mode:?}");
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

/// A small web site on 127.0.0.1 for the fetch server: pages by path, and the User-Agent of
/// every request it was sent.
struct Site {
    address: std::net::SocketAddr,
    agents: Arc<Mutex<Vec<String>>>,
}

/// The article the site serves at `/article`.
const ARTICLE: &str = r#"<!doctype html><html><head><title>The Engine</title><script>track()</script></head>
<body><nav><a href="/">Home</a></nav><article><h1>The Engine</h1>
<p>Ada Lovelace wrote what is called the first program, for Babbage's Analytical Engine, in 1843. Her
notes describe how the engine could compute Bernoulli numbers, step by step, on punched cards.</p>
<p>She saw that such a machine could act on more than numbers: on music, for one, if its rules could
be expressed in the engine's notation. That idea outlived the engine by a century and more.</p>
</article><footer>Footer text</footer></body></html>"#;

impl Site {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let agents = Arc::new(Mutex::new(Vec::new()));
        let seen = agents.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(Self::answer(stream, seen.clone()));
            }
        });
        Self { address, agents }
    }

    /// Answers one request on `stream` (the connection closes after it).
    async fn answer(mut stream: tokio::net::TcpStream, agents: Arc<Mutex<Vec<String>>>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
            if stream.read(&mut byte).await.unwrap_or(0) == 0 {
                return;
            }
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
        if let Some(agent) =
            head.lines().find_map(|l| l.strip_prefix("user-agent: ").or(l.strip_prefix("User-Agent: ")))
        {
            agents.lock().unwrap().push(agent.to_owned());
        }
        let (status, kind, body): (&str, &str, Vec<u8>) = match path.as_str() {
            "/robots.txt" => ("200 OK", "text/plain", b"User-agent: *\nDisallow: /private\n".to_vec()),
            "/article" | "/private/article" => {
                ("200 OK", "text/html; charset=utf-8", ARTICLE.as_bytes().to_vec())
            }
            "/plain" => ("200 OK", "text/plain", "0123456789".repeat(1200).into_bytes()),
            "/big" => ("200 OK", "text/plain", vec![b'x'; 3_000_000]),
            "/deep" => ("200 OK", "text/html", "<div>".repeat(100_000).into_bytes()),
            "/moved" => ("302 Found", "text/plain", Vec::new()),
            _ => ("404 Not Found", "text/plain", b"no such page".to_vec()),
        };
        let location = if path == "/moved" { "Location: /article\r\n" } else { "" };
        let reply = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{location}Connection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        let _ = stream.write_all(&body).await;
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }
}

/// `modelctx serve fetch --allow-private-addresses ARGS…` (the site is on loopback).
async fn fetch_server(args: &[&str]) -> Client {
    let args: Vec<&str> = ["fetch", "--allow-private-addresses"].iter().chain(args).copied().collect();
    Client::spawn(&serve(&args), options(EraMode::Auto)).await.unwrap()
}

async fn fetched(client: &Client, arguments: Value) -> (bool, String) {
    let result = client.call_tool("fetch", arguments).await.unwrap();
    (result.is_error == Some(true), text(&result))
}

#[tokio::test]
async fn fetch_reads_pages_as_markdown_in_windows() {
    let site = Site::start().await;
    let client = fetch_server(&[]).await;
    let tools = client.list_tools().await.unwrap();
    assert_eq!(required(tool(&tools, "fetch")), ["url"]);
    let (failed, article) = fetched(&client, json!({"url": site.url("/article")})).await;
    assert!(!failed, "{article}");
    assert!(article.starts_with(&format!("Contents of {}:\n", site.url("/article"))), "{article}");
    assert!(article.contains("Ada Lovelace wrote what is called the first program"), "{article}");
    assert!(!article.contains("track()") && !article.contains("<p>"), "markdown, without scripts: {article}");
    let (_, html) = fetched(&client, json!({"url": site.url("/article"), "raw": true})).await;
    assert!(html.contains("cannot be simplified to markdown") && html.contains("<p>Ada"), "{html}");

    let (_, first) = fetched(&client, json!({"url": site.url("/plain"), "max_length": 100})).await;
    assert!(first.contains("Call the fetch tool with a start_index of 100"), "{first}");
    let (_, last) = fetched(&client, json!({"url": site.url("/plain"), "start_index": 11_950})).await;
    assert!(last.ends_with("0123456789") && !last.contains("truncated"), "{last}");
    let (_, past) = fetched(&client, json!({"url": site.url("/plain"), "start_index": 12_000})).await;
    assert!(past.ends_with("<error>No more content available.</error>"), "{past}");

    let (_, moved) = fetched(&client, json!({"url": site.url("/moved")})).await;
    assert!(moved.contains("Ada Lovelace"), "a redirect is followed: {moved}");
    // 500 KB of nested `<div>`s is refused at once (it took minutes, or overflowed the stack).
    let (failed, deep) = fetched(&client, json!({"url": site.url("/deep")})).await;
    assert!(!failed && deep.contains("nests its elements more than 256 deep"), "{deep}");
    let (failed, missing) = fetched(&client, json!({"url": site.url("/nowhere")})).await;
    assert!(failed && missing.ends_with("- status code 404"), "{missing}");
    let agents = site.agents.lock().unwrap().clone();
    assert!(
        agents.iter().all(|a| a.starts_with("modelctx-fetch/") && a.contains("(Autonomous;")),
        "{agents:?}"
    );
}

#[tokio::test]
async fn fetch_honours_robots_txt_unless_a_person_asks_or_it_is_told_not_to() {
    let site = Site::start().await;
    let client = fetch_server(&[]).await;
    let (failed, refused) = fetched(&client, json!({"url": site.url("/private/article")})).await;
    assert!(failed && refused.contains("robots.txt") && refused.contains("Disallow: /private"), "{refused}");
    let prompt = client.get_prompt("fetch", json!({"url": site.url("/private/article")})).await.unwrap();
    let text = serde_json::to_value(&prompt).unwrap()[0]["content"]["text"].as_str().unwrap().to_owned();
    assert!(text.contains("Ada Lovelace"), "the prompt is a person asking: {text}");
    assert!(site.agents.lock().unwrap().iter().any(|a| a.contains("(User-Specified;")));
    let ignoring = fetch_server(&["--ignore-robots-txt", "--user-agent", "TestBot/1.0"]).await;
    let (failed, article) = fetched(&ignoring, json!({"url": site.url("/private/article")})).await;
    assert!(!failed && article.contains("Ada Lovelace"), "{article}");
    assert!(site.agents.lock().unwrap().iter().any(|a| a == "TestBot/1.0"));
}

#[tokio::test]
async fn fetch_reaches_public_addresses_only_and_bounds_what_it_reads() {
    let site = Site::start().await;
    // A proxy in the environment (the site plays it) is not used: it would resolve the name
    // itself, past the check (it was: a name reached the proxy unchecked).
    let proxy = format!("http://{}", site.address);
    let mut public_only = serve(&["fetch"]).env("NO_PROXY", "").env("no_proxy", "");
    for variable in ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"] {
        public_only = public_only.env(variable, &proxy);
    }
    let public_only = Client::spawn(&public_only, options(EraMode::Auto)).await.unwrap();
    for url in [
        site.url("/article"),
        "http://169.254.169.254/latest/meta-data/".into(),
        format!("http://localhost:{}/article", site.address.port()),
    ] {
        let (failed, refused) = fetched(&public_only, json!({"url": url})).await;
        assert!(failed && refused.contains("only public addresses may be reached"), "{url}: {refused}");
    }
    assert!(site.agents.lock().unwrap().is_empty(), "nothing reached the site or the proxy");
    let (failed, file) = fetched(&public_only, json!({"url": "file:///etc/passwd"})).await;
    assert!(failed && file.contains("only http and https"), "{file}");

    let bounded = fetch_server(&["--ignore-robots-txt", "--max-bytes", "100000"]).await;
    let (failed, big) = fetched(&bounded, json!({"url": site.url("/big"), "max_length": 999_999})).await;
    assert!(
        !failed && big.contains("The page was longer than the server reads"),
        "{}",
        &big[big.len() - 200..]
    );
    assert!(big.len() < 101_000, "{} bytes", big.len());
}

/// Runs `git ARGS…` in `dir` for a test's setup.
fn git_in(dir: &std::path::Path, args: &[&str]) -> String {
    let output = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A repository with one commit (`README.md`) on `main`, and an identity to commit with.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git_in(dir.path(), &["init", "--quiet", "--initial-branch=main"]);
    git_in(dir.path(), &["config", "user.name", "Ada"]);
    git_in(dir.path(), &["config", "user.email", "ada@example.com"]);
    std::fs::write(dir.path().join("README.md"), "hello\n").unwrap();
    git_in(dir.path(), &["add", "README.md"]);
    git_in(dir.path(), &["commit", "--quiet", "-m", "First commit"]);
    dir
}

async fn git_server(repo: &std::path::Path, mode: EraMode) -> Client {
    Client::spawn(&serve(&["git", "--repo", repo.to_str().unwrap()]), options(mode)).await.unwrap()
}

async fn git_tool(client: &Client, name: &str, arguments: Value) -> (bool, String) {
    let result = client.call_tool(name, arguments).await.unwrap();
    (result.is_error == Some(true), text(&result))
}

#[tokio::test]
async fn git_offers_the_official_tools_and_works_a_repository_in_both_eras() {
    for (mode, version) in ERAS {
        let dir = repository();
        let repo = dir.path().to_str().unwrap();
        let client = git_server(dir.path(), mode).await;
        assert_eq!(client.server().version, version);
        let tools = client.list_tools().await.unwrap();
        for name in [
            "git_status",
            "git_diff_unstaged",
            "git_diff_staged",
            "git_diff",
            "git_commit",
            "git_add",
            "git_reset",
            "git_log",
            "git_create_branch",
            "git_checkout",
            "git_show",
            "git_branch",
        ] {
            assert!(required(tool(&tools, name)).contains(&"repo_path"), "{name}");
        }
        assert_eq!(required(tool(&tools, "git_diff")), ["repo_path", "target"]);

        std::fs::write(dir.path().join("README.md"), "hello\nworld\n").unwrap();
        let (_, status) = git_tool(&client, "git_status", json!({"repo_path": repo})).await;
        assert!(status.starts_with("Repository status:\n") && status.contains("README.md"), "{status}");
        let (_, unstaged) = git_tool(&client, "git_diff_unstaged", json!({"repo_path": repo})).await;
        assert!(unstaged.starts_with("Unstaged changes:\n") && unstaged.contains("+world"), "{unstaged}");
        let (failed, added) =
            git_tool(&client, "git_add", json!({"repo_path": repo, "files": ["README.md"]})).await;
        assert_eq!((failed, added.as_str()), (false, "Files staged successfully"));
        let (_, staged) =
            git_tool(&client, "git_diff_staged", json!({"repo_path": repo, "context_lines": 0})).await;
        assert!(staged.contains("+world") && !staged.lines().any(|l| l == " hello"), "no context: {staged}");
        let (_, reset) = git_tool(&client, "git_reset", json!({"repo_path": repo})).await;
        assert_eq!(reset, "All staged changes reset");
        let (_, staged) = git_tool(&client, "git_diff_staged", json!({"repo_path": repo})).await;
        assert_eq!(staged, "Staged changes:\n");
        git_tool(&client, "git_add", json!({"repo_path": repo, "files": ["."]})).await;
        let (failed, committed) =
            git_tool(&client, "git_commit", json!({"repo_path": repo, "message": "Say world"})).await;
        assert!(!failed && committed.starts_with("Changes committed successfully with hash "), "{committed}");
        let hash = committed.rsplit(' ').next().unwrap().to_owned();
        assert_eq!(git_in(dir.path(), &["rev-parse", "HEAD"]).trim(), hash);

        let (_, log) = git_tool(&client, "git_log", json!({"repo_path": repo, "max_count": 1})).await;
        assert!(log.starts_with("Commit history:\nCommit: ") && log.contains("Message: Say world"), "{log}");
        assert!(!log.contains("First commit"), "max_count: {log}");
        let (_, none) =
            git_tool(&client, "git_log", json!({"repo_path": repo, "end_timestamp": "2001-01-01"})).await;
        assert_eq!(none, "Commit history:\n");
        let (_, shown) = git_tool(&client, "git_show", json!({"repo_path": repo, "revision": "HEAD"})).await;
        assert!(shown.contains(&format!("Commit: {hash}")) && shown.contains("+world"), "{shown}");
        let (_, diff) = git_tool(&client, "git_diff", json!({"repo_path": repo, "target": "HEAD~1"})).await;
        assert!(diff.starts_with("Diff with HEAD~1:\n") && diff.contains("+world"), "{diff}");

        let (_, created) =
            git_tool(&client, "git_create_branch", json!({"repo_path": repo, "branch_name": "feature"}))
                .await;
        assert_eq!(created, "Created branch 'feature' from 'main'");
        let (_, switched) =
            git_tool(&client, "git_checkout", json!({"repo_path": repo, "branch_name": "feature"})).await;
        assert_eq!(switched, "Switched to branch 'feature'");
        let (_, branches) =
            git_tool(&client, "git_branch", json!({"repo_path": repo, "branch_type": "local"})).await;
        assert!(branches.contains("* feature") && branches.contains("main"), "{branches}");
        let (_, containing) = git_tool(
            &client,
            "git_branch",
            json!({"repo_path": repo, "branch_type": "all", "not_contains": hash}),
        )
        .await;
        assert!(containing.trim().is_empty(), "every branch has the commit: {containing}");
        client.close().await;
    }
}

#[tokio::test]
async fn git_refuses_other_repositories_options_and_unknown_revisions() {
    let (dir, other) = (repository(), repository());
    let repo = dir.path().to_str().unwrap();
    let client = git_server(dir.path(), EraMode::Auto).await;
    let (failed, refused) =
        git_tool(&client, "git_status", json!({"repo_path": other.path().to_str().unwrap()})).await;
    assert!(failed && refused.contains("is not one of the repositories this server was given"), "{refused}");
    let (failed, inside) = git_tool(&client, "git_status", json!({"repo_path": format!("{repo}/.")})).await;
    assert!(!failed, "a path inside the repository names it: {inside}");

    let output = dir.path().join("written-by-an-option");
    let hostile = [
        ("git_diff", json!({"repo_path": repo, "target": format!("--output={}", output.display())})),
        ("git_show", json!({"repo_path": repo, "revision": "--output=/tmp/x"})),
        ("git_checkout", json!({"repo_path": repo, "branch_name": "-b"})),
        ("git_create_branch", json!({"repo_path": repo, "branch_name": "--force"})),
        ("git_add", json!({"repo_path": repo, "files": ["--chmod=+x"]})),
        ("git_branch", json!({"repo_path": repo, "branch_type": "all", "contains": "--exec=x"})),
    ];
    for (tool_name, arguments) in hostile {
        let (failed, message) = git_tool(&client, tool_name, arguments).await;
        assert!(failed && message.contains("options are not accepted here"), "{tool_name}: {message}");
    }
    assert!(!output.exists(), "no option reached git");
    let (failed, unknown) =
        git_tool(&client, "git_show", json!({"repo_path": repo, "revision": "no-such-branch"})).await;
    assert!(failed && unknown.contains("names no commit"), "{unknown}");
}

/// A repository's own configuration cannot make the server run a program: hooks, an
/// fsmonitor command, filter drivers (clean, smudge, process: run by status, add, checkout),
/// a diff driver and a signing program set in `.git/config` — or in a file it includes — stay
/// unused (the filter drivers and the signing program used to run).
#[tokio::test]
async fn git_runs_no_program_a_repository_configures() {
    let dir = repository();
    let repo = dir.path().to_str().unwrap();
    let ran = dir.path().join("ran");
    let program = |name: &str| {
        let path = dir.path().join(format!("{name}.sh"));
        std::fs::write(&path, format!("#!/bin/sh\necho {name} >> {}\ncat\n", ran.display())).unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
        path.to_str().unwrap().to_owned()
    };
    let hook = dir.path().join(".git/hooks/pre-commit");
    std::fs::copy(program("hook"), &hook).unwrap();
    git_in(dir.path(), &["config", "core.fsmonitor", &program("monitor")]);
    for (key, name) in [
        ("filter.evil.clean", "clean"),
        ("filter.evil.smudge", "smudge"),
        ("diff.evil.textconv", "textconv"),
        ("diff.evil.command", "diffcommand"),
        ("gpg.program", "gpg"),
        ("gpg.ssh.program", "ssh-keygen"),
    ] {
        git_in(dir.path(), &["config", key, &program(name)]);
    }
    let included = dir.path().join("included.config");
    std::fs::write(&included, format!("[filter \"other\"]\n\tprocess = {}\n", program("process"))).unwrap();
    git_in(dir.path(), &["config", "include.path", included.to_str().unwrap()]);
    git_in(dir.path(), &["config", "log.showSignature", "true"]);
    std::fs::write(dir.path().join(".gitattributes"), "*.txt filter=evil diff=evil\n*.dat filter=other\n")
        .unwrap();
    let client = git_server(dir.path(), EraMode::Auto).await;
    std::fs::write(dir.path().join("new.txt"), "x\n").unwrap();
    std::fs::write(dir.path().join("new.dat"), "y\n").unwrap();
    git_tool(&client, "git_status", json!({"repo_path": repo})).await;
    let (failed, added) = git_tool(
        &client,
        "git_add",
        json!({"repo_path": repo, "files": [".gitattributes", "new.txt", "new.dat"]}),
    )
    .await;
    assert!(!failed, "{added}");
    let (failed, committed) =
        git_tool(&client, "git_commit", json!({"repo_path": repo, "message": "m"})).await;
    assert!(!failed, "{committed}");
    std::fs::write(dir.path().join("new.txt"), "changed\n").unwrap();
    // Every tool, and a checkout that writes a filtered file (smudge), and a signed commit.
    for (tool_name, arguments) in [
        ("git_diff_unstaged", json!({"repo_path": repo})),
        ("git_create_branch", json!({"repo_path": repo, "branch_name": "side"})),
        ("git_add", json!({"repo_path": repo, "files": ["new.txt"]})),
        ("git_diff_staged", json!({"repo_path": repo})),
        ("git_commit", json!({"repo_path": repo, "message": "changed"})),
        ("git_show", json!({"repo_path": repo, "revision": "HEAD"})),
        ("git_diff", json!({"repo_path": repo, "target": "side"})),
        ("git_log", json!({"repo_path": repo})),
        ("git_checkout", json!({"repo_path": repo, "branch_name": "side"})),
        ("git_branch", json!({"repo_path": repo, "branch_type": "all"})),
    ] {
        let (failed, said) = git_tool(&client, tool_name, arguments).await;
        assert!(!failed, "{tool_name}: {said}");
    }
    std::fs::write(dir.path().join("new.dat"), "z\n").unwrap();
    git_tool(&client, "git_add", json!({"repo_path": repo, "files": ["new.dat"]})).await;
    // Signed with the user's program (here none works): it may fail, but not run the repository's.
    git_tool(&client, "git_commit_signed", json!({"repo_path": repo, "message": "signed"})).await;
    let ran = std::fs::read_to_string(&ran).unwrap_or_default();
    assert!(ran.is_empty(), "programs of the repository's ran: {ran}");
}

/// A submodule's configuration is no way around it: its work tree is not looked into (status
/// compared its files through the filter its own `.git/config` named, and ran it).
#[tokio::test]
async fn git_runs_no_program_a_submodule_configures() {
    let (dir, sub) = (repository(), repository());
    let ran = dir.path().join("ran");
    std::fs::write(sub.path().join(".gitattributes"), "*.md filter=evil\n").unwrap();
    git_in(sub.path(), &["add", ".gitattributes"]);
    git_in(sub.path(), &["commit", "--quiet", "-m", "attributes"]);
    let source = sub.path().to_str().unwrap();
    git_in(dir.path(), &["-c", "protocol.file.allow=always", "submodule", "--quiet", "add", source, "sub"]);
    git_in(dir.path(), &["commit", "--quiet", "-m", "submodule"]);
    let inside = dir.path().join("sub");
    git_in(&inside, &["config", "filter.evil.clean", &format!("touch {}; cat", ran.display())]);
    // The same size, so status must read the file (through the filter) to see the change.
    let readme = inside.join("README.md");
    let same_size = std::fs::read_to_string(&readme).unwrap().replace('h', "j");
    std::fs::write(&readme, same_size).unwrap();
    let client = git_server(dir.path(), EraMode::Auto).await;
    let (failed, status) =
        git_tool(&client, "git_status", json!({"repo_path": dir.path().to_str().unwrap()})).await;
    assert!(!failed, "{status}");
    assert!(!ran.exists(), "the submodule's filter ran");
}

/// `modelctx tools list` lists each reference server's official tools, spawned with the
/// options it needs.
#[test]
fn the_cli_lists_every_reference_servers_tools() {
    let (repo, scratch) = (repository(), tempfile::tempdir().unwrap());
    let db = scratch.path().join("memory.db");
    let servers: [(&[&str], &[&str]); 4] = [
        (&["time"], &["get_current_time", "convert_time"]),
        (&["memory", "--db", db.to_str().unwrap()], &MEMORY_TOOLS),
        (&["fetch"], &["fetch"]),
        (&["git", "--repo", repo.path().to_str().unwrap()], &["git_status", "git_log", "git_branch"]),
    ];
    for (args, tools) in servers {
        let mut list = Command::new(BIN);
        list.args(["tools", "list", "--", BIN, "serve"]).args(args).env("NO_COLOR", "1").stdin(Stdio::null());
        let output = run_bounded(list, WAIT);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        for tool in tools {
            assert!(
                stdout.lines().any(|line| line.trim_start().starts_with(tool)),
                "{args:?} lists no {tool}: {stdout}"
            );
        }
    }
}
