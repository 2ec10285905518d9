//! `modelctx inspect --web` in a real browser: Debian's Chromium, headless, driven over the
//! Chrome DevTools Protocol (`support::browser`). One test per capability of the page, each
//! asserting what the page shows against real servers: tools called through their forms,
//! questions answered in dialogs, the message log, servers connected from the page (and every
//! forged request refused), completion, followed resources, the Performance tab, every tab's
//! accessibility and pictures of every tab under `target/inspector/`.
//!
//! Needs `chromium` and axe-core (scripts/packages.sh installs both).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::browser::{WAIT, axe_source, bin, browse, everything_in, inspector, inspector_of};
use serde_json::{Value, json};

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
        ("tasks", "document.querySelector('[data-tab=tools]').click();
                   document.querySelector('#tool-list li[data-name=\"slow_compute\"]').click();
                   document.querySelector('#tool-fields [name=seconds]').value = '1';
                   document.querySelector('#tool-fields [name=label]').value = 'pi';
                   document.querySelector('#tool-start-task').click();
                   document.querySelector('[data-tab=tasks]').click();",
         "document.querySelector('#tasks tbody').textContent.includes('computed pi')"),
        ("roots", "document.querySelector('#root-uri').value = '/tmp';
                   document.querySelector('#root-form').requestSubmit();",
         "document.querySelector('#root-list').textContent.includes('file:///tmp/')"),
        ("skills", "document.querySelector('#skill-list li[data-name]').click();",
         "document.querySelector('#skill-manifest').textContent.includes('---')"),
        ("messages", "", "document.querySelectorAll('#messages tbody tr').length > 4"),
        ("notifications", "", "document.querySelectorAll('#notifications li').length > 0"),
    ];
    for (tab, act, shown) in steps {
        page.eval(&format!("document.querySelector('[data-tab={tab}]').click(); {act}")).await;
        page.until(&format!("the {tab} tab filled"), shown).await;
        page.screenshot(&format!("tab-{tab}.png")).await;
    }
}

/// Spawning a command from the page is the most dangerous thing the inspector does, so only
/// the page itself may ask: each request another origin (or a DNS-rebound name) could forge is
/// refused with its reason, and its command never runs; the page's own request runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_forged_request_spawns_a_command() {
    let (_inspector, url) = inspector_of(&[]);
    let (base, token) = url.split_once("/?token=").unwrap();
    let (base, token) = (base.to_owned(), token.to_owned());
    let port = base.rsplit(':').next().unwrap().to_owned();
    let scratch = tempfile::tempdir().unwrap();
    let spawned = scratch.path().join("spawned");
    let form = json!({"command": ["sh", "-c", format!("touch {}", spawned.display())]}).to_string();
    let client = reqwest::Client::new();
    let own_origin = base.clone();
    let post = |path: &str, headers: Vec<(&'static str, String)>, content_type: &str| {
        let mut request =
            client.post(format!("{base}{path}")).header("content-type", content_type).body(form.clone());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request.send()
    };
    let servers = "/api/servers".to_owned();
    // What each forgery is, where it goes, its headers, its body's type and the status it gets.
    type Headers = Vec<(&'static str, String)>;
    let forgeries: Vec<(&str, String, Headers, &str, u16)> = vec![
        ("no token", servers.clone(), vec![("origin", own_origin.clone())], "application/json", 401),
        (
            "the token in the URL (a form or an image can carry one)",
            format!("/api/servers?token={token}"),
            vec![("origin", own_origin.clone())],
            "application/json",
            403,
        ),
        ("no Origin", servers.clone(), vec![("x-inspector-token", token.clone())], "application/json", 403),
        (
            "another Origin",
            servers.clone(),
            vec![("x-inspector-token", token.clone()), ("origin", "http://evil.example".into())],
            "application/json",
            403,
        ),
        (
            "a DNS-rebound Host",
            servers.clone(),
            vec![
                ("x-inspector-token", token.clone()),
                ("origin", format!("http://evil.example:{port}")),
                ("host", format!("evil.example:{port}")),
            ],
            "application/json",
            421,
        ),
        (
            "a browser saying another site sent it",
            servers.clone(),
            vec![
                ("x-inspector-token", token.clone()),
                ("origin", own_origin.clone()),
                ("sec-fetch-site", "cross-site".into()),
            ],
            "application/json",
            403,
        ),
        (
            "a body a form can send (text/plain)",
            servers.clone(),
            vec![("x-inspector-token", token.clone()), ("origin", own_origin.clone())],
            "text/plain",
            415,
        ),
    ];
    for (forgery, path, headers, content_type, status) in forgeries {
        let answer = post(&path, headers, content_type).await.unwrap();
        assert_eq!(answer.status().as_u16(), status, "{forgery}: {:?}", answer.text().await);
    }
    // A CORS preflight from another origin is never granted.
    let preflight = client
        .request(reqwest::Method::OPTIONS, format!("{base}/api/servers"))
        .header("origin", "http://evil.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "x-inspector-token, content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.headers().get("access-control-allow-origin").is_none(), "{preflight:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!spawned.exists(), "a forged request spawned its command");
    let listed = client.get(format!("{base}/api/servers")).header("x-inspector-token", &token).send();
    let listed: Value = serde_json::from_str(&listed.await.unwrap().text().await.unwrap()).unwrap();
    assert_eq!(listed["servers"], json!([]), "{listed}");

    // The page's own request: the command runs (it is no MCP server, so the connection fails).
    let answer = post(
        "/api/servers",
        vec![("x-inspector-token", token.clone()), ("origin", own_origin)],
        "application/json",
    )
    .await
    .unwrap();
    assert_eq!(answer.status(), 200);
    let deadline = Instant::now() + WAIT;
    while !spawned.exists() {
        assert!(Instant::now() < deadline, "the page's own request did not spawn its command");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The Connect tab: with no server on the command line the page opens on it; a command (stdio
/// `serve everything`, 2025-11-25 asked for), a URL (`serve everything --http`, 2026-07-28) and
/// a server of a host config file open side by side, each in the era asked for; the header
/// switches between them and closes one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_connects_to_several_servers_in_either_era() {
    let mut command = Command::new(bin());
    command.args(["serve", "everything", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
    let http = crate::support::http::HttpServer::start(command);
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("mcp.json");
    let servers = json!({"mcpServers": {"configured": {"command": bin(), "args": ["serve", "everything"]}}});
    std::fs::write(&config, servers.to_string()).unwrap();

    let (_inspector, url) = inspector_of(&[]);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the connect tab", "document.body.dataset.ready === 'no-server'").await;
    assert_eq!(page.eval("document.querySelector('#tab-connect').hidden").await, json!(false));

    let shown = |id: u32| {
        format!(
            "new URLSearchParams(location.search).get('server') === '{id}' && document.body.dataset.ready === 'true'"
        )
    };
    let connect = |kind: &str, fill: String, era: &str| {
        format!(
            "document.querySelector('[data-tab=connect]').click();
             document.querySelector('input[name=connect-kind][value={kind}]').click();
             {fill}
             document.querySelector('#connect-era').value = '{era}';
             document.querySelector('#connect-open').click();"
        )
    };
    page.eval(&connect(
        "command",
        format!(
            "document.querySelector('#connect-program').value = {:?};
             document.querySelector('#connect-args').value = 'serve\\neverything';",
            bin()
        ),
        "2025-11-25",
    ))
    .await;
    page.until("the stdio server", &shown(1)).await;
    let header = page.eval("document.querySelector('#server').textContent").await;
    assert!(header.as_str().unwrap().contains("· 2025-11-25 ·"), "{header}");

    page.eval(&connect(
        "url",
        format!("document.querySelector('#connect-url').value = {:?};", http.url()),
        "2026-07-28",
    ))
    .await;
    page.until("the HTTP server", &shown(2)).await;
    let header = page.eval("document.querySelector('#server').textContent").await;
    assert!(header.as_str().unwrap().contains(&format!("· 2026-07-28 · {}", http.url())), "{header}");

    page.eval(&format!(
        "document.querySelector('[data-tab=connect]').click();
         document.querySelector('input[name=connect-kind][value=config]').click();
         document.querySelector('#connect-config').value = {:?};
         document.querySelector('#connect-read').click();",
        config.display().to_string()
    ))
    .await;
    page.until(
        "the config's servers",
        "document.querySelector('#connect-server option[value=configured]') !== null",
    )
    .await;
    page.eval("document.querySelector('#connect-era').value = 'auto'; document.querySelector('#connect-open').click();")
        .await;
    page.until("the configured server", &shown(3)).await;
    let choices =
        page.eval("[...document.querySelectorAll('#server-choice option')].map(o => o.textContent)").await;
    assert_eq!(choices.as_array().unwrap().len(), 3, "{choices}");
    assert!(choices[2].as_str().unwrap().contains("configured"), "{choices}");
    page.eval("document.querySelector('[data-tab=connect]').click()").await;
    page.screenshot("tab-connect.png").await;

    // Back to the first: it stayed open, in its era.
    page.eval(
        "const choice = document.querySelector('#server-choice');
         choice.value = '1'; choice.dispatchEvent(new Event('change'));",
    )
    .await;
    page.until("the first server again", &shown(1)).await;
    let header = page.eval("document.querySelector('#server').textContent").await;
    assert!(header.as_str().unwrap().contains("· 2025-11-25 ·"), "{header}");
    page.eval("document.querySelector('#server-close').click()").await;
    page.until("the next open server", &shown(2)).await;
    let left = page.eval("document.querySelectorAll('#server-choice option').length").await;
    assert_eq!(left, json!(2));
}

/// The Performance tab: the session's requests charted by latency, and `modelctx bench` run
/// from the page against the same server over a connection of its own — its throughput and
/// percentiles drawn as they come, its report at the end, and none of its load in the
/// session's message log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_performance_tab_charts_latency_and_runs_a_benchmark() {
    let mut target = vec!["--".to_owned()];
    target.extend([bin(), "serve", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    page.eval("document.querySelector('[data-tab=performance]').click()").await;
    page.until("the session's latencies", "document.querySelectorAll('#latency-chart rect').length > 0")
        .await;
    let summary = page.eval("document.querySelector('#latency-summary').textContent").await;
    assert!(summary.as_str().unwrap().contains("answered · median"), "{summary}");

    let logged = "document.querySelectorAll('#messages tbody tr').length";
    let before = page.eval(logged).await.as_u64().unwrap();
    page.eval(
        "document.querySelector('#bench-workload').value = 'list';
         document.querySelector('#bench-concurrency').value = '4';
         document.querySelector('#bench-requests').value = '3000';
         document.querySelector('#bench-seconds').value = '20';
         document.querySelector('#bench-run').click();",
    )
    .await;
    page.until("the report", "document.querySelector('#bench-result').textContent.includes('req/s')").await;
    let report = page.eval("document.querySelector('#bench-result').textContent").await;
    assert!(report.as_str().unwrap().starts_with("3000 requests (tools/list, 4 in flight"), "{report}");
    let points = page.eval("document.querySelectorAll('#bench-throughput polyline').length").await;
    assert_eq!(points, json!(1), "the throughput is drawn");
    let after = page.eval(logged).await.as_u64().unwrap();
    assert!(
        after - before < 10,
        "the benchmark's load went over its own connection: {before} → {after} messages"
    );
    page.screenshot("tab-performance.png").await;
}

/// Every tab passes an accessibility check: axe-core, loaded into the page, finds no serious or
/// critical violation on the Connect tab, the Server tab (with a server's experimental panels),
/// a tool's form, a resource read, a prompt chosen, the message log, the notifications and the
/// Performance tab.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tab_passes_an_accessibility_check() {
    let axe = axe_source();
    let mut target = vec!["--".to_owned()];
    target.extend([bin(), "serve", "--experimental", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    page.eval(&format!("{axe}\n;true")).await;
    let tabs = [
        ("connect", ""),
        ("overview", ""),
        ("tools", "document.querySelector('#tool-list li[data-name=\"add\"]').click();"),
        ("resources", "document.querySelector('#resource-list li[data-name]').click();"),
        ("prompts", "document.querySelector('#prompt-list li[data-name]').click();"),
        ("tasks", ""),
        ("roots", ""),
        ("skills", "document.querySelector('#skill-list li[data-name]').click();"),
        ("messages", ""),
        ("notifications", ""),
        ("performance", ""),
    ];
    for (tab, act) in tabs {
        page.eval(&format!("document.querySelector('[data-tab={tab}]').click(); {act} true")).await;
        let serious = page
            .eval(
                "axe.run(document, {resultTypes: ['violations']}).then(found => found.violations
                   .filter(v => v.impact === 'serious' || v.impact === 'critical')
                   .map(v => ({rule: v.id, impact: v.impact, help: v.help,
                               where: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))",
            )
            .await;
        assert_eq!(serious, json!([]), "the {tab} tab: {serious:#}");
    }
}

/// Completion while typing and a followed resource, in both eras: a prompt's argument and a
/// resource template's variable offer the server's completions (`completion/complete`) as they
/// are typed, the template's URI made from its fields; a resource followed from the page
/// (`subscriptions/listen` in 2026-07-28, `resources/subscribe` in 2025-11-25) is counted and
/// read again each time a tool changes it, and stops being followed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_while_typing_and_a_followed_resource_in_either_era() {
    for era in ["modern", "legacy"] {
        let mut everything = everything_in(era).await;
        let page = &mut everything.page;
        let typing = |field: &str, text: &str| {
            format!(
                "{{ const input = document.querySelector('{field}');
                   input.value = '{text}'; input.dispatchEvent(new Event('input')); }}"
            )
        };

        page.eval("document.querySelector('[data-tab=prompts]').click();
                   document.querySelector('#prompt-list li[data-name=\"test_prompt_with_arguments\"]').click();")
            .await;
        page.eval(&typing("#prompt-fields input[name=arg1]", "testV")).await;
        let offered = "[...document.querySelector('#prompt-fields input[name=arg1]').list.options].map(o => o.value).join(',')";
        page.until("the prompt's completions", &format!("{offered} === 'testValue1,testValue2'")).await;

        page.eval("document.querySelector('[data-tab=resources]').click();
                   document.querySelector('#template-list li[data-name=\"test://template/{id}/data\"]').click();")
            .await;
        page.eval(&typing("#template-fields input[name=id]", "4")).await;
        let offered = "[...document.querySelector('#template-fields input[name=id]').list.options].map(o => o.value).join(',')";
        page.until("the template's completions", &format!("{offered} === '42'")).await;
        assert_eq!(
            page.eval("document.querySelector('#read-uri').value").await,
            "test://template/4/data",
            "{era}"
        );

        page.eval(
            "document.querySelector('#resource-list li[data-name=\"test://watched-resource\"]').click()",
        )
        .await;
        page.until("the follow button", "!document.querySelector('#resource-follow').hidden").await;
        page.eval("document.querySelector('#resource-follow').click()").await;
        page.until("the followed resource", "document.querySelectorAll('#followed li').length === 1").await;
        let before = page.eval("document.querySelector('#resource-result').textContent").await;
        page.eval("document.querySelector('[data-tab=tools]').click();
                   document.querySelector('#tool-list li[data-name=\"test_trigger_resource_update\"]').click();
                   document.querySelector('#tool-call').click();")
            .await;
        page.until(
            "the update counted",
            "document.querySelector('#followed li').textContent.includes('1 update(s)')",
        )
        .await;
        page.until(
            "the resource read again",
            &format!("document.querySelector('#resource-result').textContent !== {before}"),
        )
        .await;
        page.eval(
            "document.querySelector('[data-tab=resources]').click();
                   document.querySelector('#followed li button').click();",
        )
        .await;
        page.until("no resource followed", "document.querySelector('#followed-box').hidden").await;
    }
}

/// The message log says what each answer is — its `resultType` and cache hints (`ttlMs`,
/// `cacheScope`) in 2026-07-28 — and shows the rounds of a multi-round-trip request under it: a
/// tool that needs the client's roots is answered `input_required`, and the call sent again with
/// the roots is marked its second round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_message_log_shows_result_types_cache_hints_and_rounds() {
    let root = tempfile::tempdir().unwrap();
    let (_inspector, url) = inspector(root.path());
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    page.eval(
        "document.querySelector('[data-tab=tools]').click();
         document.querySelector('#tool-list li[data-name=\"test_input_required_result_list_roots\"]').click();
         document.querySelector('#tool-call').click();",
    )
    .await;
    page.until("the tool's answer", "document.querySelector('#tool-result').textContent.length > 10").await;
    page.eval("document.querySelector('[data-tab=messages]').click()").await;
    let notes = "[...document.querySelectorAll('#messages .notes')].map(n => n.textContent)";
    page.until("a second round", &format!("{notes}.includes('round 2 of tools/call')")).await;
    let seen = page.eval(notes).await;
    let seen: Vec<&str> = seen.as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(seen.iter().any(|n| n.starts_with("input_required")), "{seen:?}");
    assert!(
        seen.iter()
            .any(|n| n.starts_with("complete · ttl ") && (n.ends_with("private") || n.ends_with("public"))),
        "{seen:?}"
    );
    let indented = page.eval("document.querySelectorAll('#messages tr.round').length").await;
    assert_eq!(indented, json!(1), "the second round sits under its request");
    page.screenshot("rounds.png").await;
}
