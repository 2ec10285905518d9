//! The web inspector's protocol features in a real browser (headless Chromium over the DevTools
//! Protocol, as `inspector_web`): structured output shown beside the text and checked against
//! the tool's output schema, tasks started, watched, cancelled and listed, roots added and
//! removed (the change told to a 2025-11-25 server) and skills loaded and read, in either era
//! against `serve everything`; and the same page against a server of the official TypeScript
//! SDK that speaks only 2025-11-25 (npm's `@modelcontextprotocol/server-everything`, run by
//! `scripts/interop.sh`, which installs it).

use std::path::PathBuf;

use crate::support::browser::{Page, browse, everything_in, inspector_of};

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
