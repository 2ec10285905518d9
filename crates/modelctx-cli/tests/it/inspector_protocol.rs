//! The web inspector's protocol features in a real browser (headless Chromium over the DevTools
//! Protocol, as `inspector_web`): structured output shown beside the text and checked against
//! the tool's output schema, tasks started, watched, cancelled and listed, roots added and
//! removed (the change told to a 2025-11-25 server) and skills loaded and read, in either era
//! against `serve everything`; a tool's app (MCP Apps) framed and bridged; and the same page against a server of the official TypeScript
//! SDK that speaks only 2025-11-25 (npm's `@modelcontextprotocol/server-everything`, run by
//! `scripts/interop.sh`, which installs it).

use std::path::PathBuf;

use crate::oauth::protected;
use crate::support::authorization_server::AuthorizationServer;
use crate::support::browser::{Page, browse, everything_in, inspector_of, inspector_with};

/// `document.querySelector(selector)` clicked, after the tab `tab` is shown.
fn click(tab: &str, selector: &str) -> String {
    format!(
        "document.querySelector('[data-tab={tab}]').click(); document.querySelector('{selector}').click(); true"
    )
}

/// Sets the tool form's field `name` to `value`.
fn fill(name: &str, value: &str) -> String {
    format!("document.querySelector('#tool-fields [name={name}]').value = {value:?};")
}

/// Whether the text of `selector` includes `text`.
fn shows(selector: &str, text: &str) -> String {
    format!("(document.querySelector('{selector}')?.textContent || '').includes({text:?})")
}

/// Adds root `uri` in the Roots tab and waits for the outcome.
async fn add_root(page: &mut Page, uri: &str) {
    page.eval(&format!(
        "document.querySelector('[data-tab=roots]').click();
         document.querySelector('#root-uri').value = {uri:?};
         document.querySelector('#root-name').value = 'work';
         document.querySelector('#root-form').requestSubmit(); true"
    ))
    .await;
}

/// The roots the server sees, as the fixture tool that asks for them says.
async fn roots_seen(page: &mut Page, tool: &str, expected: &str) {
    page.eval(&click("tools", &format!("#tool-list li[data-name=\"{tool}\"]"))).await;
    page.eval("document.querySelector('#tool-result').replaceChildren(); document.querySelector('#tool-call').click(); true").await;
    page.until(&format!("the roots the server saw: {expected}"), &shows("#tool-result", expected)).await;
}

/// In either era against `serve everything`: `add`'s structured result beside its text, said
/// to conform to its output schema; `slow_compute` started as a task, watched to its result,
/// and another cancelled; a root added (a 2025-11-25 server told with
/// `notifications/roots/list_changed`) and seen by the server, then removed; a skill loaded,
/// its `SKILL.md` shown and a file of it read, each verified (2026-07-28: an extension).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_roots_skills_and_structured_output_in_either_era() {
    for era in ["modern", "legacy"] {
        let mut everything = everything_in(era).await;
        let page = &mut everything.page;

        // Structured output beside the text, checked.
        page.eval(&click("tools", "#tool-list li[data-name=\"add\"]")).await;
        assert_eq!(page.eval("document.querySelector('#tool-output-schema-box').hidden").await, false);
        page.eval(&format!(
            "{} {} document.querySelector('#tool-call').click(); true",
            fill("a", "2"),
            fill("b", "3")
        ))
        .await;
        page.until(
            "the structured result",
            "document.querySelector('[data-output-check=conforms]') !== null",
        )
        .await;
        assert!(page.eval(&shows("#tool-result .columns", "\"sum\": 5")).await == true, "{era}");

        // A task to its result, another cancelled.
        page.eval(&click("tools", "#tool-list li[data-name=\"slow_compute\"]")).await;
        assert_eq!(page.eval("document.querySelector('#tool-start-task').hidden").await, false, "{era}");
        page.eval(&format!(
            "{} {} document.querySelector('#tool-start-task').click(); true",
            fill("seconds", "1"),
            fill("label", "pi")
        ))
        .await;
        page.until("the task started", &shows("#tool-result", "running as task")).await;
        page.eval("document.querySelector('[data-tab=tasks]').click(); true").await;
        page.until("the task's result", &shows("#tasks tbody", "computed pi after 1s")).await;
        let status = page.eval("document.querySelector('#tasks tbody tr td.status').textContent").await;
        assert_eq!(status, "completed", "{era}");
        page.eval(&click("tools", "#tool-list li[data-name=\"slow_compute\"]")).await;
        page.eval(&format!(
            "{} {} document.querySelector('#tool-start-task').click(); true",
            fill("seconds", "600"),
            fill("label", "forever")
        ))
        .await;
        page.until("the second task", "document.querySelectorAll('#tasks tbody tr').length === 2").await;
        page.until(
            "it works",
            "document.querySelectorAll('#tasks tbody tr')[1].textContent.includes('working')",
        )
        .await;
        page.eval("document.querySelectorAll('#tasks tbody tr')[1].querySelector('[data-task-action=cancel]').click(); true")
            .await;
        page.until("it is cancelled", "document.querySelectorAll('#tasks tbody tr')[1].querySelector('td.status').textContent === 'cancelled'")
            .await;
        if era == "legacy" {
            page.eval("document.querySelector('[data-tab=tasks]').click(); document.querySelector('#tasks-list').click(); true")
                .await;
            page.until("the server's list", &shows("#tasks-outcome", "the server lists 2 task(s)")).await;
        }
        page.screenshot(&format!("tasks-{era}.png")).await;

        // A root added, seen by the server, removed.
        let dir = tempfile::tempdir().unwrap();
        let uri = url::Url::from_directory_path(dir.path().canonicalize().unwrap()).unwrap().to_string();
        roots_seen(page, "test_input_required_result_list_roots", "0 root(s)").await;
        add_root(page, dir.path().to_str().unwrap()).await;
        let told = if era == "legacy" { "told the server" } else { "asks for the roots with each request" };
        page.until("the root added", &shows("#roots-outcome", told)).await;
        assert!(page.eval(&shows("#root-list", &uri)).await == true);
        roots_seen(page, "test_input_required_result_list_roots", uri.trim_end_matches('/')).await;
        if era == "legacy" {
            let sent = "[...document.querySelectorAll('#messages tbody tr')].some(r =>
                r.children[1].textContent === 'sent' && r.textContent.includes('notifications/roots/list_changed'))";
            page.until("the change told", sent).await;
        }
        page.eval(&format!(
            "document.querySelector('[data-tab=roots]').click();
             document.querySelector('#root-list li[data-root=\"{uri}\"] button').click(); true"
        ))
        .await;
        page.until("the root removed", &shows("#root-list", "none offered")).await;
        roots_seen(page, "test_input_required_result_list_roots", "0 root(s)").await;
        add_root(page, "relative/path").await;
        page.until("a relative path refused", &shows("#roots-outcome", "give an absolute directory path"))
            .await;
        page.screenshot(&format!("roots-{era}.png")).await;

        // A skill: its SKILL.md verified, then a file of it (an extension: 2026-07-28 only).
        if era == "legacy" {
            page.eval("document.querySelector('[data-tab=skills]').click(); true").await;
            assert_eq!(page.eval("document.querySelector('#skills-none').hidden").await, false);
            continue;
        }
        page.eval(&click("skills", "#skill-list li[data-name]")).await;
        page.until(
            "the SKILL.md",
            "document.querySelector('#skill-manifest pre')?.textContent.includes('---')",
        )
        .await;
        page.eval("document.querySelector('#skill-files li[data-name]').click(); true").await;
        page.until("a file verified", &shows("#skill-file", "verified")).await;
        page.screenshot(&format!("skills-{era}.png")).await;
    }
}

fn node_dir() -> PathBuf {
    PathBuf::from(std::env::var("MODELCTX_PEER_NODE_DIR").expect("run through scripts/interop.sh"))
}

/// The page against a server it did not write, which speaks only 2025-11-25: npm's
/// `@modelcontextprotocol/server-everything` (the official TypeScript SDK v1), spawned from the
/// connect form. Its structured content is checked against its output schema; its research
/// task is started and its status messages followed to its report; the roots the page offers
/// are what its `get-roots-list` tool shows, before and after one is added (it re-reads them on
/// `notifications/roots/list_changed`); and its URL elicitation shows the link to open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs npm's @modelcontextprotocol/server-everything; run by scripts/interop.sh"]
async fn a_server_of_the_typescript_sdk_that_speaks_only_2025_11_25() {
    let everything = node_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let (_inspector, url) = inspector_of(&[]);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the connect tab", "document.body.dataset.ready === 'no-server'").await;
    page.eval(&format!(
        "document.querySelector('#connect-program').value = 'node';
         document.querySelector('#connect-args').value = {:?};
         document.querySelector('#connect-form').requestSubmit(); true",
        format!("{}\nstdio", everything.display())
    ))
    .await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    assert!(page.eval(&shows("#server", "2025-11-25")).await == true);

    page.eval(&click("tools", "#tool-list li[data-name=\"get-structured-content\"]")).await;
    page.eval("document.querySelector('#tool-fields [name=location]').value = '0'; document.querySelector('#tool-call').click(); true").await;
    page.until("the structured result", "document.querySelector('[data-output-check=conforms]') !== null")
        .await;

    page.eval(&click("tools", "#tool-list li[data-name=\"simulate-research-query\"]")).await;
    page.eval("document.querySelector('#tool-fields [name=topic]').value = 'tides'; document.querySelector('#tool-start-task').click(); true").await;
    page.until("the task started", &shows("#tool-result", "running as task")).await;
    page.eval("document.querySelector('[data-tab=tasks]').click(); true").await;
    page.until("a stage's status message", &shows("#tasks tbody", "Analyzing content")).await;
    page.until("the report", &shows("#tasks tbody", "tides")).await;
    page.until("completed", "document.querySelector('#tasks tbody td.status').textContent === 'completed'")
        .await;
    page.screenshot("sdk-server-task.png").await;

    roots_seen(&mut page, "get-roots-list", "no roots are currently configured").await;
    let dir = tempfile::tempdir().unwrap();
    let uri = url::Url::from_directory_path(dir.path().canonicalize().unwrap()).unwrap().to_string();
    add_root(&mut page, dir.path().to_str().unwrap()).await;
    page.until("the change told", &shows("#roots-outcome", "told the server")).await;
    roots_seen(&mut page, "get-roots-list", uri.trim_end_matches('/')).await;

    page.eval(&click("tools", "#tool-list li[data-name=\"trigger-url-elicitation\"]")).await;
    page.eval(
        "document.querySelector('#tool-fields [name=url]').value = 'https://example.com/consent';
         document.querySelector('#tool-fields [name=message]').value = 'Please agree';
         document.querySelector('#tool-call').click(); true",
    )
    .await;
    page.until("the URL elicitation", "document.querySelector('#elicitation').open").await;
    let link = page.eval("document.querySelector('#elicitation-url').href").await;
    assert_eq!(link, "https://example.com/consent");
    page.screenshot("sdk-server-url-elicitation.png").await;
    page.eval("document.querySelector('#elicitation-accept').click(); true").await;
    page.until("the tool's answer", "document.querySelector('#tool-result').textContent.length > 0").await;
}

/// Every text of the page and of its frames (an app's frame is another origin, which the
/// page's own script cannot read; the DevTools protocol can).
async fn all_text(page: &mut Page) -> String {
    fn texts(node: &serde_json::Value, out: &mut String) {
        if node["nodeType"] == 3 {
            out.push_str(node["nodeValue"].as_str().unwrap_or_default());
            out.push('\n');
        }
        for key in ["children", "contentDocument"] {
            match &node[key] {
                serde_json::Value::Array(children) => children.iter().for_each(|child| texts(child, out)),
                child @ serde_json::Value::Object(_) => texts(child, out),
                _ => {}
            }
        }
    }
    let document = page.command("DOM.getDocument", serde_json::json!({"depth": -1, "pierce": true})).await;
    let mut out = String::new();
    texts(&document["root"], &mut out);
    out
}

/// Presses `key` (its DevTools key name and code) in whatever has the focus.
async fn press(page: &mut Page, key: &str, code: u32) {
    for kind in ["keyDown", "keyUp"] {
        let mut event =
            serde_json::json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code});
        if key == "Enter" && kind == "keyDown" {
            event["text"] = "\r".into();
        }
        page.command("Input.dispatchKeyEvent", event).await;
    }
}

/// A tool with an app (MCP Apps): `clock` is called from its form and its `ui://` app is framed
/// under the result, sandboxed, under the policy its `_meta.ui.csp` allows; the page answers
/// the app's messages as its host — the tool's result handed to it, which it shows — and when
/// the app's button asks for `clock_refresh` (a tool only the app may call), the page calls it
/// on the server and answers the app. Every message between page and app is in the log. The
/// app's document is served once, in a frame only, under `sandbox allow-scripts`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_is_framed_sandboxed_and_its_tool_calls_go_through_the_page() {
    let mut everything = everything_in("modern").await;
    let page = &mut everything.page;
    page.eval(&click("tools", "#tool-list li[data-name=\"clock\"]")).await;
    page.eval("document.querySelector('#tool-call').click(); true").await;
    page.until("the app's frame", "document.querySelector('#app-frame') !== null").await;
    let policy = page.eval("document.querySelector('#app-policy').textContent").await;
    assert!(policy.as_str().unwrap().starts_with("default-src 'none'"), "{policy}");
    assert_eq!(
        page.eval("document.querySelector('#app-frame').getAttribute('sandbox')").await,
        "allow-scripts"
    );
    let bridged = |direction: &str, text: &str| {
        format!(
            "[...document.querySelectorAll('#messages tbody tr')].some(r =>
                r.children[1].textContent === {direction:?} && r.textContent.includes({text:?}))"
        )
    };
    page.until("the result handed to the app", &bridged("page → app", "ui/notifications/tool-result")).await;
    let deadline = std::time::Instant::now() + crate::support::browser::WAIT;
    while !all_text(page).await.contains("seconds since the Unix epoch") {
        assert!(
            std::time::Instant::now() < deadline,
            "the app never showed the time: {}",
            all_text(page).await
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    page.screenshot("app-clock.png").await;

    // The app's button, pressed from the keyboard inside its frame. On a loaded machine the
    // keys can reach the frame before it takes focus: the press is made again (up to three
    // times) when no call follows it within ten seconds.
    let called = bridged("app → page", "clock_refresh");
    for _ in 0..3 {
        page.eval("document.querySelector('#app-frame').focus(); true").await;
        press(page, "Tab", 9).await;
        press(page, "Enter", 13).await;
        if page.within(std::time::Duration::from_secs(10), &called).await.is_ok() {
            break;
        }
    }
    page.until("the app's call", &called).await;
    let relayed = "[...document.querySelectorAll('#messages tbody tr')].some(r =>
        r.children[1].textContent === 'sent' && r.textContent.includes('\"name\": \"clock_refresh\"'))";
    page.until("the call sent to the server", relayed).await;
    page.until("the answer handed back", &bridged("page → app", "seconds since the Unix epoch")).await;

    // The document itself: once, in a frame only, sandboxed by its policy.
    let (base, token) = everything.url.split_once("/?token=").unwrap();
    let http = reqwest::Client::new();
    let opened: serde_json::Value = http
        .post(format!("{base}/api/servers/1/apps/open"))
        .header("x-inspector-token", token)
        .header("origin", base)
        .header("content-type", "application/json")
        .body(serde_json::json!({"uri": "ui://everything/clock.html"}).to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .map(|text| serde_json::from_str(&text).unwrap())
        .unwrap();
    let view = format!("{base}{}", opened["result"]["view"].as_str().unwrap());
    let fetch = |dest: &'static str| http.get(&view).header("sec-fetch-dest", dest).send();
    assert_eq!(fetch("document").await.unwrap().status(), 403, "not as a page of its own");
    let framed = fetch("iframe").await.unwrap();
    assert_eq!(framed.status(), 200);
    let policy = framed.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(policy.starts_with("default-src 'none'") && policy.contains("sandbox allow-scripts"), "{policy}");
    assert!(framed.text().await.unwrap().contains("clock_refresh"));
    assert_eq!(fetch("iframe").await.unwrap().status(), 404, "served once");
}

/// OAuth in the page against a server that asks for it (`serve everything --auth-issuer`, the
/// tests' authorization server): "Log in" shows each step — the server's challenge, its
/// protected resource metadata, the authorization server's metadata, the registration — then
/// the consent page, opened in a new tab, which the authorization server sends back to the
/// inspector; the tokens are kept in the credentials file, every secret in the steps masked,
/// and the connection made next uses them.
#[test]
fn an_oauth_login_step_by_step_then_a_connection_that_uses_its_tokens() {
    // The authorization server runs on a runtime of its own, started and dropped outside this
    // test's.
    let authorization = AuthorizationServer::start();
    let server = protected(&authorization);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(log_in_and_connect(&authorization, &server.url()));
}

async fn log_in_and_connect(authorization: &AuthorizationServer, server: &str) {
    let home = tempfile::tempdir().unwrap();
    let credentials = home.path().join("credentials.json");
    let (_inspector, url) = inspector_with(&[], &[("MODELCTX_CREDENTIALS", &credentials)]);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the connect tab", "document.body.dataset.ready === 'no-server'").await;
    page.eval(&format!(
        "document.querySelector('input[name=connect-kind][value=url]').click();
         document.querySelector('#connect-url').value = {:?};
         document.querySelector('#connect-login').click(); true",
        server
    ))
    .await;
    page.until("the consent link", "!document.querySelector('#oauth-consent').hidden").await;
    for step in [
        "challenge",
        "protected resource metadata",
        "authorization server metadata",
        "registration",
        "consent",
    ] {
        let shown = format!("document.querySelector('#oauth-steps li[data-step=\"{step}\"]') !== null");
        assert_eq!(page.eval(&shown).await, true, "the {step} step");
    }
    let consent = page.eval("document.querySelector('#oauth-consent-link').href").await;
    assert!(
        consent.as_str().unwrap().starts_with(&format!("{}/authorize?", authorization.issuer)),
        "{consent}"
    );
    page.eval("document.querySelector('#oauth-box').scrollIntoView(); true").await;
    page.screenshot("oauth-consent.png").await;

    // The person opens the consent page in a new tab; the server approves and sends it back.
    page.command("Target.createTarget", serde_json::json!({"url": consent})).await;
    page.until("logged in", &shows("#oauth-outcome", "Logged in to")).await;
    assert!(page.eval("document.querySelector('#oauth-steps li[data-step=tokens]') !== null").await == true);
    let text = page.eval("document.querySelector('#oauth-box').innerText + [...document.querySelectorAll('#oauth-box pre')].map(p => p.textContent).join(' ')").await;
    let text = text.as_str().unwrap();
    assert!(text.contains("masked"), "{text}");
    let leaked: Vec<String> =
        authorization.secrets().into_iter().filter(|secret| text.contains(secret.as_str())).collect();
    assert!(leaked.is_empty(), "secrets shown: {leaked:?}");
    assert!(
        std::fs::read_to_string(&credentials).unwrap().contains("refresh_token"),
        "kept as modelctx login keeps them"
    );
    page.eval("document.querySelector('#oauth-box').scrollIntoView(); true").await;
    page.screenshot("oauth-logged-in.png").await;

    page.eval("document.querySelector('#connect-form').requestSubmit(); true").await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    page.eval(&click("tools", "#tool-list li[data-name=\"echo\"]")).await;
    page.eval("document.querySelector('#tool-fields [name=message]').value = 'authorized'; document.querySelector('#tool-call').click(); true").await;
    page.until("the call's answer", &shows("#tool-result", "authorized")).await;
}
