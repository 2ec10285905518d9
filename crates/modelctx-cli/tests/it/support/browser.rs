//! The web inspector's test harness: `modelctx inspect --web` started on loopback, headless
//! Chromium (Debian's, or `MODELCTX_CHROMIUM`) driven over the Chrome DevTools Protocol, the
//! page's screenshots under `target/inspector/`, and axe-core to load into the page.

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
pub const WAIT: Duration = Duration::from_secs(30);

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_modelctx")
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/").join("inspector");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `modelctx inspect --web` on loopback over `serve everything`, offering `root` as a root.
pub fn inspector(root: &std::path::Path) -> (Guard, String) {
    let mut target = vec!["--root".to_owned(), root.display().to_string(), "--".into()];
    target.extend([bin(), "serve", "everything"].map(str::to_owned));
    inspector_of(&target)
}

/// `modelctx inspect --web 127.0.0.1:0 TARGET…`, and the URL it printed.
pub fn inspector_of(target: &[String]) -> (Guard, String) {
    inspector_with(target, &[])
}

/// [`inspector_of`] with the environment variables `env` set.
pub fn inspector_with(target: &[String], env: &[(&str, &std::path::Path)]) -> (Guard, String) {
    let mut child = Command::new(bin())
        .args(["inspect", "--web", "127.0.0.1:0"])
        .args(target)
        .envs(env.iter().copied())
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
pub async fn browse(url: &str) -> (Guard, tempfile::TempDir, Page) {
    let profile = tempfile::tempdir().unwrap();
    let (browser, ws_url) = chromium(profile.path()).await;
    let mut page = Page::open(&ws_url).await;
    page.command("Page.enable", json!({})).await;
    page.command("Page.navigate", json!({"url": url})).await;
    (browser, profile, page)
}

/// The inspector over `serve everything` in `era` (`modern` or `legacy`), shown in headless
/// Chromium once the server's tools are: what to keep alive, and the page.
pub struct Everything {
    pub page: Page,
    /// The URL the inspector printed, with its token.
    pub url: String,
    _inspector: Guard,
    _browser: Guard,
    _profile: tempfile::TempDir,
}

/// [`Everything`] in `era`.
pub async fn everything_in(era: &str) -> Everything {
    let mut target = vec!["--era".to_owned(), era.to_owned(), "--".to_owned()];
    target.extend([bin(), "serve", "everything"].map(str::to_owned));
    let (_inspector, url) = inspector_of(&target);
    let (_browser, _profile, mut page) = browse(&url).await;
    page.until("the server's tools", "document.body.dataset.ready === 'true'").await;
    Everything { page, url, _inspector, _browser, _profile }
}

/// One DevTools connection to a page.
pub struct Page {
    socket: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    next_id: u64,
}

impl Page {
    async fn open(ws_url: &str) -> Self {
        let (socket, _) = tokio_tungstenite::connect_async(ws_url).await.expect("the DevTools socket opens");
        Self { socket, next_id: 1 }
    }

    /// Sends a DevTools command and returns its result.
    pub async fn command(&mut self, method: &str, params: Value) -> Value {
        let answer = self.try_command(method, params).await;
        answer.unwrap_or_else(|error| panic!("{method}: {error}"))
    }

    /// Sends a DevTools command: its result, or its error (an evaluation in a page that is
    /// navigating away fails so).
    async fn try_command(&mut self, method: &str, params: Value) -> Result<Value, Value> {
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
        match answer.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(answer["result"].clone()),
        }
    }

    /// The value of a JavaScript expression in the page.
    pub async fn eval(&mut self, expression: &str) -> Value {
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
    /// throw (there is no `document.body` yet), or the page may navigate away while it is
    /// evaluated: that counts as "not yet", and the last thrown error is reported if the wait
    /// runs out.
    pub async fn until(&mut self, what: &str, expression: &str) {
        if let Err(seen) = self.within(WAIT, expression).await {
            panic!("the page never showed {what}; last seen: {seen}");
        }
    }

    /// Waits up to `wait` for `expression` to be true, as [`Page::until`] does; what it last
    /// evaluated to when it never was.
    pub async fn within(&mut self, wait: Duration, expression: &str) -> Result<(), Value> {
        let probe = format!(
            "(() => {{ try {{ return ({expression}) === true; }} catch (e) {{ return String(e); }} }})()"
        );
        let deadline = Instant::now() + wait;
        loop {
            let evaluated = self
                .try_command("Runtime.evaluate", json!({"expression": probe, "returnByValue": true}))
                .await;
            let seen = evaluated.map_or_else(|error| error, |result| result["result"]["value"].clone());
            if seen == json!(true) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(seen);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn screenshot(&mut self, name: &str) {
        let shot = self.command("Page.captureScreenshot", json!({"format": "png"})).await;
        let png = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().unwrap()).unwrap();
        std::fs::write(screenshots().join(name), png).unwrap();
    }
}

/// axe-core, the accessibility checker, as `scripts/packages.sh` installs it (`MODELCTX_AXE`
/// names another copy of `axe.min.js`).
pub fn axe_source() -> String {
    let path = std::env::var("MODELCTX_AXE").map(PathBuf::from).unwrap_or_else(|_| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser/node_modules/axe-core/axe.min.js")
    });
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}: install it with scripts/packages.sh", path.display()))
}
