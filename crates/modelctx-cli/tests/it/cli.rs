//! The `modelctx` commands that drive a server, end to end: the real binary against
//! `modelctx serve everything` spawned over stdio (`-- CMD`) and served over Streamable HTTP on
//! 127.0.0.1 (`--url`), checking what is printed and the documented exit statuses.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::http::{Guard, HttpServer};
use crate::support::{WAIT, run_bounded};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_modelctx");

/// `modelctx ARGS… -- modelctx serve everything`.
fn stdio(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).args(["--", BIN, "serve", "everything"]);
    command.env("NO_COLOR", "1").env_remove("RUST_LOG").stdin(Stdio::null());
    command
}

/// `modelctx ARGS… --url URL`.
fn http(args: &[&str], url: &str) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).args(["--url", url]);
    command.env("NO_COLOR", "1").env_remove("RUST_LOG").stdin(Stdio::null());
    command
}

fn serve_http() -> HttpServer {
    let mut command = Command::new(BIN);
    command.args(["serve", "everything", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
    HttpServer::start(command)
}

/// The CPU time `pid` has used so far, in clock ticks (user and system, `/proc/PID/stat`).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process's stat");
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("a command name").1.split_whitespace().collect();
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// Out of file descriptors, a server whose `accept` fails waits before trying again, doubling
/// the wait up to a second: it used to retry at once and spin a whole core for as long as
/// connections kept waiting in the backlog (EMFILE, hardening issue).
#[test]
fn accept_failures_back_off_instead_of_spinning() {
    let mut command = Command::new("prlimit");
    command.args(["--nofile=48:48", "--", BIN, "serve", "everything", "--http", "127.0.0.1:0"]);
    command.env_remove("RUST_LOG").stdin(Stdio::null());
    let server = HttpServer::start(command);
    // More connections than the server has descriptors: the kernel completes them all, the
    // server accepts until it has none left, and the rest wait in the backlog.
    let held: Vec<std::net::TcpStream> =
        (0..96).map(|_| std::net::TcpStream::connect(server.address).expect("a connection")).collect();
    server.log_line(|line| line.contains("accepting a connection failed"));
    let before = cpu_ticks(server.pid());
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_ticks(server.pid()) - before;
    // A spinning server uses a whole core (200 ticks at the usual 100 a second); one that waits
    // wakes a few times and serves nothing.
    assert!(used < 50, "the server used {used} ticks of CPU in 2 s while it could not accept");
    drop(held);
}

/// Runs to the end, at most [`WAIT`].
fn run(command: Command) -> Output {
    run_bounded(command, WAIT)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit status, and the JSON it printed.
fn json_of(command: Command) -> (i32, Value) {
    let output = run(command);
    let value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} / {}", stdout(&output), stderr(&output)));
    (output.status.code().unwrap(), value)
}

#[test]
fn discover_names_the_server_and_its_era_over_stdio_and_http() {
    let server = serve_http();
    for (era, version) in [("auto", "2026-07-28"), ("modern", "2026-07-28"), ("legacy", "2025-11-25")] {
        let (code, stdio_found) = json_of(stdio(&["discover", "--json", "--era", era]));
        assert_eq!(code, 0);
        assert_eq!(stdio_found["protocolVersion"], version, "{era}: {stdio_found}");
        assert_eq!(stdio_found["serverInfo"]["name"], "modelctx-everything");
        assert!(stdio_found["capabilities"]["tools"].is_object(), "{stdio_found}");
        let (code, http_found) = json_of(http(&["discover", "--json", "--era", era], &server.url()));
        assert_eq!(code, 0);
        assert_eq!(http_found["protocolVersion"], version, "{era} over HTTP: {http_found}");
    }
    let text = run(stdio(&["discover"]));
    assert!(
        stdout(&text).contains("modelctx-everything") && stdout(&text).contains("2026-07-28"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn tools_list_shows_a_table_and_json() {
    let table = stdout(&run(stdio(&["tools", "list"])));
    let add = table.lines().find(|l| l.trim_start().starts_with("add ")).expect("a row for add");
    assert!(add.contains("a* b*") && add.contains("read-only"), "{add}");
    let (code, tools) = json_of(stdio(&["tools", "list", "--json"]));
    assert_eq!(code, 0);
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"echo") && names.contains(&"long_running_operation"), "{names:?}");
}

#[test]
fn tool_arguments_are_typed_by_the_input_schema() {
    // `add` takes numbers, `echo` a string: "40" must arrive as 40 for one and "40" for the other.
    let (code, sum) = json_of(stdio(&["tools", "call", "add", "a=2", "b=40", "--json"]));
    assert_eq!(code, 0, "{sum}");
    assert_eq!(sum["structuredContent"], json!({"sum": 42.0}));
    let (_, echoed) = json_of(stdio(&["tools", "call", "echo", "message=40", "--json"]));
    assert_eq!(echoed["content"][0]["text"], "40");
    let (_, whole) = json_of(stdio(&["tools", "call", "add", r#"{"a": 1.5, "b": 1}"#, "--json"]));
    assert_eq!(whole["structuredContent"]["sum"], 2.5);
    let (_, inspector) =
        json_of(stdio(&["tools", "call", "add", "--tool-arg", "a=1", "--tool-arg", "b=2", "--json"]));
    assert_eq!(inspector["structuredContent"]["sum"], 3.0);
    let text = run(stdio(&["tools", "call", "echo", "message=hello there"]));
    assert_eq!(stdout(&text).trim(), "hello there");
}

#[test]
fn exit_statuses_tell_a_tool_error_from_bad_usage_an_unreachable_server_and_a_refusal() {
    let failed = run(stdio(&["tools", "call", "fail"]));
    assert_eq!(failed.status.code(), Some(1), "isError: {}", stderr(&failed));
    assert!(stdout(&failed).contains("always fails"));
    let bad_argument = run(stdio(&["tools", "call", "add", "a=two", "b=1"]));
    assert_eq!(bad_argument.status.code(), Some(2));
    assert!(stderr(&bad_argument).contains("argument a: \"two\" is not number"), "{}", stderr(&bad_argument));
    let mut no_target = Command::new(BIN);
    no_target.args(["tools", "list"]).stdin(Stdio::null());
    let no_target = run(no_target);
    assert_eq!(no_target.status.code(), Some(2));
    assert!(stderr(&no_target).contains("which server?"), "{}", stderr(&no_target));
    let mut missing = Command::new(BIN);
    missing.args(["ping", "--", "/nonexistent/server"]).stdin(Stdio::null());
    let missing = run(missing);
    assert_eq!(missing.status.code(), Some(3), "{}", stderr(&missing));
    // A port nothing listens on: bind one, learn it, close it.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let refused = run(http(&["tools", "list"], &format!("http://{closed}/mcp")));
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    let unknown = run(stdio(&["tools", "call", "no_such_tool"]));
    assert_eq!(unknown.status.code(), Some(4));
    assert!(stderr(&unknown).contains("no_such_tool"), "{}", stderr(&unknown));
}

#[test]
fn resources_list_templates_and_read_text_and_binary() {
    let (_, resources) = json_of(stdio(&["resources", "list", "--json"]));
    assert!(resources.as_array().unwrap().iter().any(|r| r["uri"] == "everything://readme"), "{resources}");
    let templates = stdout(&run(stdio(&["resources", "templates"])));
    assert!(templates.contains("everything://items/{id}"), "{templates}");
    let readme = run(stdio(&["resources", "read", "everything://readme"]));
    assert_eq!(stdout(&readme).trim(), "This is the everything server of modelctx.");
    // Not a terminal: binary contents come out raw, so `> file.png` works.
    let pixel = run(stdio(&["resources", "read", "--uri", "everything://pixel.png"]));
    assert!(
        pixel.stdout.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{:?}",
        &pixel.stdout[..8.min(pixel.stdout.len())]
    );
    let (_, item) = json_of(stdio(&["resources", "read", "everything://items/7", "--json"]));
    assert_eq!(item[0]["uri"], "everything://items/7");
}

#[test]
fn prompts_and_completion() {
    let listed = stdout(&run(stdio(&["prompts", "list"])));
    assert!(listed.lines().any(|l| l.contains("greeting") && l.contains("name* color")), "{listed}");
    let greeting =
        stdout(&run(stdio(&["prompts", "get", "greeting", "name=Ada", "--prompt-args", "color=blue"])));
    assert!(
        greeting.starts_with("user: ") && greeting.contains("Ada") && greeting.contains("blue"),
        "{greeting}"
    );
    let colours = stdout(&run(stdio(&["complete", "--prompt", "greeting", "color=b"])));
    assert_eq!(colours.lines().collect::<Vec<_>>(), ["blue"]);
    let (_, ids) = json_of(stdio(&["complete", "--resource", "everything://items/{id}", "id=99", "--json"]));
    assert_eq!(ids["values"][0], "99");
}

#[test]
fn listen_prints_the_changes_another_client_causes() {
    let server = serve_http();
    for era in ["modern", "legacy"] {
        let mut listener =
            http(&["listen", "--tools", "--count", "1", "--json", "--era", era], &server.url());
        listener.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut listening = Guard(listener.spawn().unwrap());
        // Until the listener is subscribed, a change may be missed: trigger until it hears one.
        let deadline = Instant::now() + WAIT;
        let status = loop {
            let trigger = run(http(&["tools", "call", "test_trigger_tool_change"], &server.url()));
            assert_eq!(trigger.status.code(), Some(0), "{}", stderr(&trigger));
            std::thread::sleep(Duration::from_millis(100));
            if let Some(status) = listening.0.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "{era}: the listener heard nothing");
        };
        assert!(status.success(), "{era}: {status}");
        let mut line = String::new();
        std::io::Read::read_to_string(listening.0.stdout.as_mut().unwrap(), &mut line).unwrap();
        let note: Value = serde_json::from_str(line.trim()).unwrap();
        assert_eq!(note["method"], "notifications/tools/list_changed", "{era}");
    }
}

#[test]
fn ping_answers_in_both_eras() {
    for era in ["modern", "legacy"] {
        let output = run(stdio(&["ping", "--era", era]));
        assert_eq!(output.status.code(), Some(0), "{era}: {}", stderr(&output));
        assert!(stdout(&output).starts_with("pong in "), "{}", stdout(&output));
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut listing = stdio(&["tools", "list"]);
    listing.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = Guard(listing.spawn().unwrap());
    drop(child.0.stdout.take());
    let status = child.wait_bounded("tools list into a closed pipe");
    let mut errors = String::new();
    std::io::Read::read_to_string(child.0.stderr.as_mut().unwrap(), &mut errors).unwrap();
    assert!(status.success() && !errors.contains("panicked"), "{status}: {errors}");
}

/// `modelctx` with `args` and the bearer token `bearer` (none: no stored credentials
/// either), run to its end (bounded).
fn tasks_command(args: &[&str], bearer: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command
        .args(args)
        .env_remove("MODELCTX_BEARER")
        .env("MODELCTX_CREDENTIALS", "/nonexistent/credentials.json");
    if let Some(token) = bearer {
        command.env("MODELCTX_BEARER", token);
    }
    run_bounded(command, WAIT)
}

/// 2026-07-28 (the tasks extension): a server that keeps every caller's tasks apart by
/// principal, and callers without one share them.
#[test]
fn tasks_are_followed_or_left_running_shown_and_cancelled_from_the_command_line() {
    let mut serve = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    serve.args(["serve", "everything", "--http", "127.0.0.1:0"]);
    let server = HttpServer::start(serve);
    tasks_from_the_command_line(&server.url(), "modern", None);
}

/// 2025-11-25 (the core tasks): a task is bound to its caller, so one the command line left
/// running is found again by the next command of the same principal (a bearer token of a
/// real JWKS), listed, waited for and cancelled.
#[test]
fn legacy_tasks_are_followed_left_running_listed_waited_for_and_cancelled_from_the_command_line() {
    let authorization = crate::support::authorization_server::AuthorizationServer::start();
    let server = crate::oauth::protected(&authorization);
    let url = server.url();
    let token = authorization.access_token("ada", &url, "everything:read everything:write");
    tasks_from_the_command_line(&url, "legacy", Some(&token));
    let finished = tasks_command(
        &[
            "tools",
            "call",
            "slow_compute",
            "seconds=0",
            "label=c",
            "--tasks",
            "--detach",
            "--era",
            "legacy",
            "--url",
            &url,
        ],
        Some(&token),
    );
    let id = String::from_utf8_lossy(&finished.stdout).trim().to_owned();
    let listed = tasks_command(&["tasks", "list", "--era", "legacy", "--url", &url, "--json"], Some(&token));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let ids: Vec<&str> = listed.as_array().unwrap().iter().filter_map(|t| t["taskId"].as_str()).collect();
    assert!(ids.len() >= 3 && ids.contains(&id.as_str()), "{id} among {listed}");
    let waited = tasks_command(&["tasks", "result", &id, "--era", "legacy", "--url", &url], Some(&token));
    assert!(waited.status.success(), "{}", String::from_utf8_lossy(&waited.stderr));
    assert_eq!(String::from_utf8_lossy(&waited.stdout).trim(), "computed c after 0s");
    // Another principal sees none of them.
    let stranger = authorization.access_token("bob", &url, "everything:read everything:write");
    let other = tasks_command(&["tasks", "get", &id, "--era", "legacy", "--url", &url], Some(&stranger));
    assert_eq!(other.status.code(), Some(4), "{}", String::from_utf8_lossy(&other.stderr));
}

/// Follows a task, leaves one running, shows it, cancels it and asks for an unknown one, in
/// `era`, with `bearer`.
fn tasks_from_the_command_line(url: &str, era: &str, bearer: Option<&str>) {
    let tasks = |args: &[&str]| {
        let args: Vec<&str> = args.iter().copied().chain(["--era", era, "--url", url]).collect();
        tasks_command(&args, bearer)
    };
    let followed = tasks(&["tools", "call", "slow_compute", "seconds=0.1", "label=a", "--tasks"]);
    assert!(followed.status.success(), "{era}: {}", String::from_utf8_lossy(&followed.stderr));
    assert_eq!(String::from_utf8_lossy(&followed.stdout).trim(), "computed a after 0.1s");
    let detached = tasks(&["tools", "call", "slow_compute", "seconds=60", "label=b", "--tasks", "--detach"]);
    let id = String::from_utf8_lossy(&detached.stdout).trim().to_owned();
    assert_eq!(id.len(), 32, "{era}: {id:?} {}", String::from_utf8_lossy(&detached.stderr));
    let shown = tasks(&["tasks", "get", &id, "--json"]);
    let task: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(task["status"], "working", "{era}");
    assert!(tasks(&["tasks", "cancel", &id]).status.success(), "{era}");
    let shown = tasks(&["tasks", "get", &id, "--json"]);
    assert_eq!(serde_json::from_slice::<Value>(&shown.stdout).unwrap()["status"], "cancelled", "{era}");
    let unknown = tasks(&["tasks", "get", "no-such-task"]);
    assert_eq!(unknown.status.code(), Some(4), "{era}");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("Task not found"), "{era}");
}

/// `--root DIR` offers the directory as a root when the server asks (`roots/list`), in both
/// eras (a round of input, a live request); a root that is not a directory is refused.
#[test]
fn roots_given_with_root_are_listed_to_the_server_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let canonical = std::fs::canonicalize(&project).unwrap();
    for era in ["modern", "legacy"] {
        let root = project.to_str().unwrap();
        let output = run(stdio(&[
            "tools",
            "call",
            "test_input_required_result_list_roots",
            "--root",
            root,
            "--era",
            era,
        ]));
        assert_eq!(output.status.code(), Some(0), "{era}: {}", stderr(&output));
        let expected = format!("The client has 1 root(s): file://{}/ (project)", canonical.display());
        assert_eq!(stdout(&output).trim(), expected, "{era}");
    }
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let refused = run(stdio(&["tools", "list", "--root", file.to_str().unwrap()]));
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("not a directory"), "{}", stderr(&refused));
}

/// A token given in `MODELCTX_BEARER` (the way the help recommends over `--bearer`, which `ps`
/// shows) is never printed by `--help` either.
#[test]
fn help_never_shows_the_bearer_token_from_the_environment() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command.args(["discover", "--help"]).env("MODELCTX_BEARER", "s3cret-token-value");
    let output = run(command);
    let help = stdout(&output);
    assert!(help.contains("MODELCTX_BEARER"), "{help}");
    assert!(!help.contains("s3cret-token-value"), "{help}");
}
