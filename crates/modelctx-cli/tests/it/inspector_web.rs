//! `modelctx inspect --web` in a real browser: Debian's Chromium, headless, driven over the
//! Chrome DevTools Protocol by this test. It opens the URL the inspector printed (with its
//! token), calls `add` of `modelctx serve everything` through the form made of the tool's
//! input schema and reads the sum from the page, answers an elicitation in the page's dialog
//! and a sampling request as the model in another, and checks that the page logged the session's JSON-RPC messages; screenshots are kept under
//! `target/inspector/`. Without the token the page and its API answer `401`.
//!
//! Needs `chromium` (scripts/packages.sh installs it); `MODELCTX_CHROMIUM` names another
//! binary.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::http::Guard;
use base64::Engine as _;
use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// The bound on every wait for the page.
const WAIT: Duration = Duration::from_secs(30);

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_modelctx")
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/").join("inspector");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `modelctx inspect --web` on loopback over `serve everything`, offering `root` as a root.
fn inspector(root: &std::path::Path) -> (Guard, String) {
    let mut target = vec!["--root".to_owned(), root.display().to_string(), "--".into()];
    target.extend([bin(), "serve", "everything"].map(str::to_owned));
    inspector_of(&target)
}

/// `modelctx inspect --web 127.0.0.1:0 TARGET…`, and the URL it printed.
fn inspector_of(target: &[String]) -> (Guard, String) {
    let mut child = Command::new(bin())
        .args(["inspect", "--web", "127.0.0.1:0"])
        .args(target)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the inspector starts");
    let stdout = child.stdout.take().unwrap();
    let guard = Guard(child);
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).expect("a first line");
    let url = first.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/?token="), "{url}");
    (guard, url)
}

/// Headless Chromium with its DevTools port, and the WebSocket URL of its page.
async fn chromium(profile: &std::path::Path) -> (Guard, String) {
    let binary = std::env::var("MODELCTX_CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let child = Command::new(&binary)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--window-size=1280,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{binary} does not start ({e}): install chromium (scripts/packages.sh)"));
    let guard = Guard(child);
    let deadline = Instant::now() + WAIT;
    let port = loop {
        if let Ok(text) = std::fs::read_to_string(profile.join("DevToolsActivePort"))
            && let Some(port) = text.lines().next().and_then(|line| line.trim().parse::<u16>().ok())
        {
            break port;
        }
        assert!(Instant::now() < deadline, "Chromium wrote no DevToolsActivePort");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let list = format!("http://127.0.0.1:{port}/json/list");
    let targets: Value = loop {
        if let Ok(answer) = reqwest::get(&list).await
            && let Ok(body) = answer.bytes().await
            && let Ok(targets) = serde_json::from_slice(&body)
        {
            break targets;
        }
        assert!(Instant::now() < deadline, "Chromium's DevTools did not answer");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let page = targets.as_array().and_then(|all| all.iter().find(|t| t["type"] == "page")).expect("a page");
    (guard, page["webSocketDebuggerUrl"].as_str().unwrap().to_owned())
}

/// Headless Chromium showing `url`: the browser (killed when dropped), its profile directory
/// and the page.
async fn browse(url: &str) -> (Guard, tempfile::TempDir, Page) {
    let profile = tempfile::tempdir().unwrap();
    let (browser, ws_url) = chromium(profile.path()).await;
    let mut page = Page::open(&ws_url).await;
    page.command("Page.enable", json!({})).await;
    page.command("Page.navigate", json!({"url": url})).await;
    (browser, profile, page)
}

/// One DevTools connection to a page.
struct Page {
    socket: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    next_id: u64,
}

impl Page {
    async fn open(ws_url: &str) -> Self {
        let (socket, _) = tokio_tungstenite::connect_async(ws_url).await.expect("the DevTools socket opens");
        Self { socket, next_id: 1 }
    }

    /// Sends a DevTools command and returns its result.
    async fn command(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket.send(Message::Text(request.into())).await.unwrap();
        let answer = tokio::time::timeout(WAIT, async {
            loop {
                let Some(Ok(Message::Text(text))) = self.socket.next().await else {
                    panic!("the socket closed")
                };
                let message: Value = serde_json::from_str(&text).unwrap();
                if message["id"] == id {
                    return message;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no answer to {method}"));
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// The value of a JavaScript expression in the page.
    async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .command(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        assert!(result.get("exceptionDetails").is_none(), "{expression}: {result}");
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is true. While the page is still loading the expression may
    /// throw (there is no `document.body` yet): that counts as "not yet", and the last thrown
    /// error is reported if the wait runs out.
    async fn until(&mut self, what: &str, expression: &str) {
        let probe = format!(
            "(() => {{ try {{ return ({expression}) === true; }} catch (e) {{ return String(e); }} }})()"
        );
        let deadline = Instant::now() + WAIT;
        loop {
            let seen = self.eval(&probe).await;
            if seen == json!(true) {
                return;
            }
            assert!(Instant::now() < deadline, "the page never showed {what}; last seen: {seen}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn screenshot(&mut self, name: &str) {
        let shot = self.command("Page.captureScreenshot", json!({"format": "png"})).await;
        let png = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().unwrap()).unwrap();
        std::fs::write(screenshots().join(name), png).unwrap();
    }
}

/// Headless Chromium drives the page: the token guards page and API, `add` is called through
/// its form, an elicitation and a sampling request are answered by the person in dialogs, the
/// server's `roots/list` gets the `--root` directory, and every message is in the log — which
/// filters, copies a call as a command line that runs, and replays it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_calls_add_through_its_form_and_answers_an_elicitation() {
    let root = tempfile::tempdir().unwrap();
    let (_inspector, url) = inspector(root.path());
    let untokened = url.split("?token=").next().unwrap().to_owned();
    let refused = reqwest::get(&untokened).await.unwrap();
    assert_eq!(refused.status(), 401, "no page without the token");
    let refused = reqwest::get(format!("{untokened}api/tools")).await.unwrap();
    assert_eq!(refused.status(), 401, "no API without the token");

    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    let server = page.eval("document.querySelector('#server').textContent").await;
    assert!(server.as_str().unwrap().contains("2026-07-28"), "{server}");

    page.eval(
        "document.querySelector('[data-tab=tools]').click();
         document.querySelector('#tool-list li[data-name=\"add\"]').click();
         document.querySelector('#tool-fields input[name=a]').value = '2';
         document.querySelector('#tool-fields input[name=b]').value = '40';
         document.querySelector('#tool-call').click();",
    )
    .await;
    page.until("the sum", "document.querySelector('#tool-result').textContent.includes('42')").await;
    page.screenshot("add.png").await;

    page.eval(
        "document.querySelector('#tool-list li[data-name=\"test_elicitation\"]').click();
         document.querySelector('#tool-fields input[name=message]').value = 'Who are you?';
         document.querySelector('#tool-call').click();",
    )
    .await;
    page.until("the elicitation dialog", "document.querySelector('#elicitation').open").await;
    let asked = page.eval("document.querySelector('#elicitation-message').textContent").await;
    assert_eq!(asked, "Who are you?");
    page.screenshot("elicitation.png").await;
    page.eval(
        "document.querySelector('#elicitation-fields input[name=username]').value = 'ada';
         document.querySelector('#elicitation-fields input[name=email]').value = 'ada@example.com';
         document.querySelector('#elicitation-accept').click();",
    )
    .await;
    page.until(
        "the answer in the result",
        "document.querySelector('#tool-result').textContent.includes('ada@example.com')",
    )
    .await;

    // A sampling request: the person reads the conversation and answers as the model.
    page.eval(
        "document.querySelector('#tool-list li[data-name=\"test_sampling\"]').click();
         document.querySelector('#tool-fields input[name=prompt]').value = 'What is 2+2?';
         document.querySelector('#tool-call').click();",
    )
    .await;
    page.until("the sampling dialog", "document.querySelector('#sampling').open").await;
    let conversation = page.eval("document.querySelector('#sampling-conversation').textContent").await;
    assert!(conversation.as_str().unwrap().contains("What is 2+2?"), "{conversation}");
    page.screenshot("sampling.png").await;
    page.eval(
        "document.querySelector('#sampling-answer').value = '4, said the person';
         document.querySelector('#sampling-send').click();",
    )
    .await;
    page.until(
        "the person's answer in the result",
        "document.querySelector('#tool-result').textContent.includes('LLM response: 4, said the person')",
    )
    .await;

    // The server asks for the roots: the page's session offers the one given with --root.
    page.eval(
        "document.querySelector('#tool-list li[data-name=\"test_input_required_result_list_roots\"]').click();
         document.querySelector('#tool-call').click();",
    )
    .await;
    let root_uri = url::Url::from_directory_path(root.path()).unwrap().to_string();
    let root_uri = root_uri.trim_end_matches('/');
    page.until(
        "the root in the result",
        &format!("document.querySelector('#tool-result').textContent.includes({root_uri:?})"),
    )
    .await;

    page.eval("document.querySelector('[data-tab=messages]').click()").await;
    let logged = page.eval("document.querySelectorAll('#messages tbody tr').length").await;
    assert!(logged.as_u64().unwrap() >= 4, "the session's messages are logged: {logged}");
    let calls = page.eval("[...document.querySelectorAll('#messages tbody td')].filter(td => td.textContent === 'tools/call').length").await;
    assert!(calls.as_u64().unwrap() >= 3, "every call is in the log: {calls}");

    // The history: filtered to the tool calls, the `add` call copied as a command line that
    // runs as it reads, then replayed from the page.
    page.eval(
        "const filter = document.querySelector('#message-filter');
         filter.value = 'tools/call'; filter.dispatchEvent(new Event('input'));",
    )
    .await;
    let shown =
        page.eval("[...document.querySelectorAll('#messages tbody tr')].filter(r => !r.hidden).length").await;
    assert!(shown.as_u64() < logged.as_u64() && shown.as_u64() >= calls.as_u64(), "{shown} of {logged}");
    let add_row = "[...document.querySelectorAll('#messages tbody tr')]
        .find(r => !r.hidden && r.querySelector('[data-again]') && r.textContent.includes('\"name\": \"add\"'))";
    page.eval(&format!("{add_row}.querySelector('[data-again=command]').click()")).await;
    let line = page.eval("document.querySelector('#message-detail').value").await;
    let line = line.as_str().unwrap().to_owned();
    assert!(line.starts_with("modelctx tools call add a:=2 b:=40 -- "), "{line}");
    let ran = Command::new("sh")
        .args(["-c", &line.replacen("modelctx", bin(), 1)])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(ran.status.success() && String::from_utf8_lossy(&ran.stdout).contains("42"), "{ran:?}");
    page.eval(&format!("{add_row}.querySelector('[data-again=replay]').click()")).await;
    page.until("the replay's answer", "document.querySelector('#message-detail').value.includes('42')").await;
    page.screenshot("messages.png").await;
}

/// The Server tab shows the experimental extensions a server declares: its server card, read
/// from beside its endpoint, with the check against the live server; and its lists fetched over
/// HTTP GET, the second time revalidated (`304`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_tab_shows_the_card_and_the_lists_over_get() {
    let mut command = Command::new(bin());
    command.args(["serve", "everything", "--http", "127.0.0.1:0", "--experimental"]).stdin(Stdio::null());
    let server = crate::support::http::HttpServer::start(command);
    let (_inspector, url) = inspector_of(&["--url".to_owned(), server.url()]);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the card", "!document.querySelector('#card-section').hidden").await;
    let card = page.eval("document.querySelector('#card').textContent").await;
    assert!(card.as_str().unwrap().contains("io.github.modelctx/everything"), "{card}");
    assert!(card.as_str().unwrap().contains(&server.url()), "{card}");
    let check = page.eval("document.querySelector('#card-check').textContent").await;
    assert_eq!(check, "The card agrees with the live server.");
    page.screenshot("server-card.png").await;

    // Lists over GET (experimental): fetched, then revalidated with the page's ETag.
    page.until("the lists over GET", "!document.querySelector('#lists-section').hidden").await;
    page.eval("document.querySelector('#list-buttons button[data-list=tools]').click()").await;
    page.until("a fetch", "document.querySelector('#list-outcome').textContent.includes('fetched (200)')")
        .await;
    page.eval("document.querySelector('#list-buttons button[data-list=tools]').click()").await;
    page.until(
        "a revalidation",
        "document.querySelector('#list-outcome').textContent.includes('revalidated (304')",
    )
    .await;
    page.screenshot("lists-over-get.png").await;
}

/// The Server tab's utilities: `ping` answers with its round trip, and the log level decides
/// which of a tool's log messages the session receives — none before one is asked for
/// (2026-07-28 sends logs only to a request that asks), the tool's three `info` lines at `info`,
/// none again at `error`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_and_the_log_level_from_the_server_tab() {
    let mut target = vec!["--".to_owned()];
    target.extend([bin(), "serve", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    page.eval("document.querySelector('#ping').click()").await;
    page.until(
        "the pong",
        "/^pong in [0-9.]+ ms$/.test(document.querySelector('#utility-result').textContent)",
    )
    .await;

    // Counted in the message log, which holds what the wire carried in order: once the call's
    // answer is the last row, every log message sent before it is there too.
    let logs = "[...document.querySelectorAll('#messages tbody tr')]
        .filter(r => r.children[2].textContent === 'notifications/message').length";
    let rows = "document.querySelectorAll('#messages tbody tr').length";
    let answered_after = |before: u64| {
        format!(
            "(() => {{ const rows = [...document.querySelectorAll('#messages tbody tr')];
                 return rows.length > {before} && rows[rows.length - 1].children[2].textContent.startsWith('↩'); }})()"
        )
    };
    let call_logging_tool = "document.querySelector('[data-tab=tools]').click();
         document.querySelector('#tool-list li[data-name=\"test_tool_with_logging\"]').click();
         document.querySelector('#tool-call').click();";
    let before = page.eval(rows).await.as_u64().unwrap();
    page.eval(call_logging_tool).await;
    page.until("the call's answer in the log", &answered_after(before)).await;
    assert_eq!(page.eval(logs).await, json!(0), "no level asked for, no log messages");

    for (level, expected) in [("info", 3), ("error", 3)] {
        page.eval(&format!(
            "document.querySelector('[data-tab=overview]').click();
             {{ const select = document.querySelector('#log-level');
                select.value = '{level}'; select.dispatchEvent(new Event('change')); }}"
        ))
        .await;
        let said =
            format!("document.querySelector('#utility-result').textContent.includes('at {level} and above')");
        page.until("the level", &said).await;
        let before = page.eval(rows).await.as_u64().unwrap();
        page.eval(call_logging_tool).await;
        page.until("the call's answer in the log", &answered_after(before)).await;
        assert_eq!(page.eval(logs).await, json!(expected), "at {level}");
    }
    page.eval("document.querySelector('[data-tab=overview]').click()").await;
    page.screenshot("server-utilities.png").await;
}

/// A server of HTTP over stdio (experimental, `--stdio-v2`) is inspected as any other: the
/// Server tab names its transport, its lists come over GET through the pipe, and a request
/// copied as a command line carries `--stdio-v2`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_http_over_stdio_is_inspected_as_any_other() {
    let mut target = vec!["--stdio-v2".to_owned(), "--".to_owned()];
    target.extend([bin(), "serve", "--experimental", "--stdio-v2", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    let transport = page
        .eval("[...document.querySelectorAll('#overview dt')].find(dt => dt.textContent === 'transport').nextSibling.textContent")
        .await;
    assert_eq!(transport, "stdio-v2");
    page.until("the lists over GET", "!document.querySelector('#lists-section').hidden").await;
    page.eval("document.querySelector('#list-buttons button[data-list=tools]').click()").await;
    page.until("a fetch", "document.querySelector('#list-outcome').textContent.includes('fetched (200)')")
        .await;
    page.screenshot("stdio-v2.png").await;
    page.eval("document.querySelector('[data-tab=messages]').click()").await;
    let list_row = "[...document.querySelectorAll('#messages tbody tr')]
        .find(r => r.querySelector('[data-again]') && r.children[2].textContent === 'tools/list')";
    page.eval(&format!("{list_row}.querySelector('[data-again=command]').click()")).await;
    let line = page.eval("document.querySelector('#message-detail').value").await;
    assert!(line.as_str().unwrap().contains(" --stdio-v2 -- "), "{line}");
}

/// A server that hosts interceptors (experimental, `serve --experimental guard`): the Server
/// tab lists them, and one invoked from the page on a payload answers its result — the
/// redactor's rewrite.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_tab_lists_and_invokes_the_interceptors_a_server_hosts() {
    let mut target = vec!["--".to_owned()];
    target.extend([bin(), "serve", "--experimental", "guard"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until(
        "the interceptors",
        "document.querySelectorAll('#interceptor-list li[data-name]').length === 3",
    )
    .await;
    page.eval("document.querySelector('#interceptor-list li[data-name=\"pii-redactor\"]').click()").await;
    page.eval("document.querySelector('#interceptor-invoke').click()").await;
    page.until(
        "the rewrite",
        "document.querySelector('#interceptor-result').textContent.includes('[EMAIL]')",
    )
    .await;
    let result = page.eval("JSON.parse(document.querySelector('#interceptor-result').textContent)").await;
    assert_eq!(result["modified"], true, "{result}");
    assert_eq!(result["payload"]["params"]["arguments"]["message"], "write to [EMAIL]", "{result}");
    page.screenshot("interceptors.png").await;
}

/// A server that offers events (experimental, `serve --experimental`): the Server tab lists its
/// event types, and polling one twice shows the ticks that happened between.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_tab_lists_and_polls_a_servers_events() {
    let mut target = vec!["--".to_owned()];
    target.extend([bin(), "serve", "--experimental", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until(
        "the event types",
        "document.querySelector('#event-list li[data-name=\"clock.tick\"]') !== null",
    )
    .await;
    page.eval("document.querySelector('#event-list li[data-name=\"clock.tick\"]').click()").await;
    page.until(
        "polling from now",
        "document.querySelector('#event-result').textContent.includes('polling from now on')",
    )
    .await;
    // Ticks come once a second: poll until one has come (bounded by the page's wait).
    page.until(
        "a tick since",
        "(() => { const shown = document.querySelector('#event-result').textContent;
                  if (shown.includes('\"clock.tick\"')) return true;
                  document.querySelector('#event-list li[data-name=\"clock.tick\"]').click(); return false; })()",
    )
    .await;
    page.screenshot("events.png").await;
}

/// Every tab of the page, each shown with something in it, photographed as `tab-NAME.png`
/// (`scripts/screenshots.sh` copies them into docs/inspector/): the Server tab, a tool chosen,
/// a resource read, a prompt chosen, the message log and the notifications a tool's progress
/// sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tab_is_shown_with_something_in_it() {
    let mut target = vec!["--".to_owned()];
    target.extend([bin(), "serve", "--experimental", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    page.screenshot("tab-server.png").await;
    let steps = [
        ("tools", "document.querySelector('#tool-list li[data-name=\"long_running_operation\"]').click();
                   document.querySelector('#tool-call').click();",
         "document.querySelector('#tool-result').textContent.includes('finished')"),
        ("resources", "document.querySelector('#resource-list li[data-name]').click();
                       if (document.querySelector('#read-uri').value) document.querySelector('#read-form').requestSubmit();",
         "document.querySelector('#resource-result').textContent.length > 0"),
        ("prompts", "document.querySelector('#prompt-list li[data-name]').click();",
         "!document.querySelector('#prompt-detail').hidden"),
        ("messages", "", "document.querySelectorAll('#messages tbody tr').length > 4"),
        ("notifications", "", "document.querySelectorAll('#notifications li').length > 0"),
    ];
    for (tab, act, shown) in steps {
        page.eval(&format!("document.querySelector('[data-tab={tab}]').click(); {act}")).await;
        page.until(&format!("the {tab} tab filled"), shown).await;
        page.screenshot(&format!("tab-{tab}.png")).await;
    }
}
