//! Authorization end to end on 127.0.0.1: a real authorization server (the test's own, in
//! `support`), `modelctx serve everything --http … --auth-issuer …` as the resource server,
//! and modelctx's OAuth client, through `modelctx login` and through the library.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use crate::support::authorization_server::AuthorizationServer;
use crate::support::http::HttpServer;
use crate::support::{WAIT, run_bounded};
use modelctx::auth::{FetchLimits, Headless, OAuth, OAuthOptions};
use modelctx::client::egress::Egress;
use modelctx::client::{Client, ClientOptions};
use modelctx::protocol::types::Implementation;
use serde_json::json;

/// `modelctx serve everything` behind `authorization`'s tokens.
pub(crate) fn protected(authorization: &AuthorizationServer) -> HttpServer {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command.args(["serve", "everything", "--http", "127.0.0.1:0", "--auth-issuer", &authorization.issuer]);
    command.args(["--auth-jwks", &authorization.jwks_uri()]);
    HttpServer::start(command)
}

/// A `modelctx` command with the credentials file `credentials` and every log line on.
fn modelctx(credentials: &std::path::Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command
        .args(args)
        .env("MODELCTX_CREDENTIALS", credentials)
        .env("RUST_LOG", "trace")
        .env_remove("MODELCTX_BEARER");
    command
}

/// The secrets `authorization` issued that appear in `text`.
fn leaked(authorization: &AuthorizationServer, text: &str) -> Vec<String> {
    authorization.secrets().into_iter().filter(|secret| text.contains(secret.as_str())).collect()
}

/// Acts as the user's browser: visits the authorization URL, and follows its redirect to the
/// CLI's loopback listener.
fn approve(url: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let approved = browser.get(url).send().await.unwrap();
        assert_eq!(approved.status(), 302, "{:?}", approved.text().await);
        let callback = approved.headers()["location"].to_str().unwrap().to_owned();
        assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
        let done = browser.get(&callback).send().await.unwrap();
        assert_eq!(done.status(), 200);
    });
}

#[test]
fn auth_37_50_53_login_keeps_tokens_every_url_command_uses_them_and_no_log_line_shows_a_secret() {
    let authorization = AuthorizationServer::start();
    let server = protected(&authorization);
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let credentials = home.path().join("credentials.json");

    // Without a login, a command is refused and told what to do.
    let refused = run_bounded(modelctx(&credentials, &["tools", "list", "--url", &url]), WAIT);
    assert_eq!(refused.status.code(), Some(4), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("run `modelctx login URL`"));

    // `modelctx login --no-browser` prints the URL; the test is the browser.
    let mut login = modelctx(&credentials, &["login", &url, "--no-browser", "--wait", "10"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = login.stderr.take().unwrap();
    let (lines, received) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let mut log = String::new();
    let deadline = Instant::now() + WAIT;
    let authorize_url = loop {
        let line = received
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the URL in time");
        log.push_str(&line);
        log.push('\n');
        if let Some(url) = line.trim().strip_prefix(&format!("{}/authorize?", authorization.issuer)) {
            break format!("{}/authorize?{url}", authorization.issuer);
        }
    };
    approve(&authorize_url);
    let mut guard = crate::support::http::Guard(login);
    let status = guard.wait_bounded("modelctx login");
    let mut stdout = String::new();
    guard.0.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    while let Ok(line) = received.recv_timeout(Duration::from_millis(200)) {
        log.push_str(&line);
        log.push('\n');
    }
    assert!(status.success(), "{stdout}\n{log}");
    assert!(
        stdout.starts_with(&format!("Logged in to {url} with everything:read offline_access")),
        "{stdout}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&credentials).unwrap().permissions().mode() & 0o777, 0o600);
    }

    // The kept token reaches a read-only tool; a tool that writes needs more scope, which a
    // command cannot stop to ask for.
    let called =
        run_bounded(modelctx(&credentials, &["tools", "call", "echo", "message=hi", "--url", &url]), WAIT);
    let called_log = String::from_utf8_lossy(&called.stderr).into_owned();
    assert!(called.status.success(), "{called_log}");
    assert!(String::from_utf8_lossy(&called.stdout).contains("hi"));
    let writing =
        run_bounded(modelctx(&credentials, &["tools", "call", "test_simple_text", "--url", &url]), WAIT);
    let writing_log = String::from_utf8_lossy(&writing.stderr).into_owned();
    assert_eq!(writing.status.code(), Some(4), "{writing_log}");
    assert!(writing_log.contains(&format!("run `modelctx login {url}`")), "{writing_log}");

    // A host (the gateway's half) authorizes each configured backend with the tokens kept for
    // its URL: the config names no credential.
    let config = home.path().join("mcp.json");
    std::fs::write(&config, json!({"mcpServers": {"remote": {"url": url}}}).to_string()).unwrap();
    let hosted = run_bounded(
        modelctx(
            &credentials,
            &[
                "host",
                "--config",
                config.to_str().unwrap(),
                "tools",
                "call",
                "remote__echo",
                "message=hosted",
                "--yes",
            ],
        ),
        WAIT,
    );
    let hosted_log = String::from_utf8_lossy(&hosted.stderr).into_owned();
    assert!(hosted.status.success(), "{hosted_log}");
    assert!(String::from_utf8_lossy(&hosted.stdout).contains("hosted"));

    // Not one issued code, token or refresh token in any log line at trace level.
    assert!(log.lines().count() > 20 && called_log.lines().count() > 20, "trace logging was on");
    for text in [&log, &stdout, &called_log, &writing_log, &hosted_log] {
        let found = leaked(&authorization, text);
        assert!(found.is_empty(), "secrets in a log: {found:?}");
    }
    // The credentials file keeps the tokens: that is its job, and only its owner reads it.
    assert!(!leaked(&authorization, &std::fs::read_to_string(&credentials).unwrap()).is_empty());

    // Logging out forgets the tokens.
    let out = run_bounded(modelctx(&credentials, &["logout", &url]), WAIT);
    assert!(out.status.success());
    let refused = run_bounded(modelctx(&credentials, &["tools", "list", "--url", &url]), WAIT);
    assert_eq!(refused.status.code(), Some(4));
}

/// The library's client of `url`, approving at once through `authorization`.
fn oauth_client(url: &str) -> OAuth {
    let mut options =
        OAuthOptions::authorization_code(Arc::new(Headless::new("http://127.0.0.1:9/callback")));
    options.fetch = FetchLimits { egress: Egress::Any, ..FetchLimits::default() };
    OAuth::new(url, options).unwrap()
}

fn text(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn auth_18_47_48_step_up_asks_for_the_union_of_scopes_and_an_expired_token_is_refreshed() {
    let authorization = AuthorizationServer::start();
    let server = protected(&authorization);
    let url = server.url();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let connect = |oauth: OAuth| {
            let options = ClientOptions {
                auth: Some(Arc::new(oauth)),
                ..ClientOptions::new(Implementation::new("oauth-test", "1"))
            };
            Client::connect_http(&url, Default::default(), options)
        };
        let client = connect(oauth_client(&url)).await.unwrap();
        assert_eq!(text(&client.call_tool("echo", json!({"message": "read"})).await.unwrap()), "read");
        // 403 insufficient_scope for everything:write: asked again, keeping everything:read.
        let written = client.call_tool("test_simple_text", json!({})).await.unwrap();
        assert_eq!(text(&written), "This is a simple text response for testing.");
        let asked = authorization.record.lock().unwrap().authorizations.clone();
        assert_eq!(
            asked,
            ["everything:read offline_access", "everything:read everything:write offline_access"]
        );

        // A token the resource server finds expired: refreshed, not authorized again.
        authorization.expire_first.store(true, std::sync::atomic::Ordering::SeqCst);
        let client = connect(oauth_client(&url)).await.unwrap();
        assert_eq!(text(&client.call_tool("echo", json!({"message": "again"})).await.unwrap()), "again");
        let record = authorization.record.lock().unwrap();
        assert_eq!(record.authorizations.len(), 3, "one more authorization, for the new client");
        assert_eq!(record.grants.last().map(String::as_str), Some("refresh_token"), "{:?}", record.grants);
    });
}

/// Machine to machine, with no person and no browser: `modelctx login --client-credentials`
/// (the secret from the environment, never on the command line; or the client's private key,
/// `--private-key`, signing `private_key_jwt` assertions) and `--assertion-file` (a workload's
/// JWT, which a platform of the test's own signed) get tokens that later commands use; a wrong
/// secret, a key not registered or a forged assertion is refused. No secret reaches the output.
#[test]
fn login_without_a_person_by_client_credentials_or_a_workload_assertion() {
    use crate::support::authorization_server::{KEYED_CLIENT, MACHINE_CLIENT, MACHINE_SECRET};
    let authorization = AuthorizationServer::start();
    let server = protected(&authorization);
    let url = server.url();
    let home = tempfile::tempdir().unwrap();
    let echo = ["tools", "call", "echo", "message=machine", "--url", &url];

    let machine = home.path().join("machine.json");
    let login = |secret: &str| {
        let mut login =
            modelctx(&machine, &["login", &url, "--client-credentials", "--client-id", MACHINE_CLIENT]);
        login.env("MODELCTX_CLIENT_SECRET", secret);
        run_bounded(login, WAIT)
    };
    let refused = login("not-the-secret");
    assert_eq!(refused.status.code(), Some(4), "{}", String::from_utf8_lossy(&refused.stderr));
    let logged_in = login(MACHINE_SECRET);
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&logged_in.stdout),
        String::from_utf8_lossy(&logged_in.stderr)
    );
    assert!(logged_in.status.success() && output.contains(&format!("Logged in to {url}")), "{output}");
    let called = run_bounded(modelctx(&machine, &echo), WAIT);
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));
    assert!(String::from_utf8_lossy(&called.stdout).contains("machine"));
    let all_output = format!("{output}{}", String::from_utf8_lossy(&called.stderr));
    assert!(
        leaked(&authorization, &all_output).is_empty() && !all_output.contains(MACHINE_SECRET),
        "{all_output}"
    );

    let workload = home.path().join("workload.json");
    let assertion = home.path().join("token.jwt");
    std::fs::write(&assertion, "forged.assertion.value").unwrap();
    let assertion_arg = assertion.to_str().unwrap();
    let forged = run_bounded(modelctx(&workload, &["login", &url, "--assertion-file", assertion_arg]), WAIT);
    assert_eq!(forged.status.code(), Some(4), "{}", String::from_utf8_lossy(&forged.stderr));
    std::fs::write(&assertion, authorization.workload_assertion("system:serviceaccount:ci:runner")).unwrap();
    let logged_in =
        run_bounded(modelctx(&workload, &["login", &url, "--assertion-file", assertion_arg]), WAIT);
    assert!(logged_in.status.success(), "{}", String::from_utf8_lossy(&logged_in.stderr));
    let called = run_bounded(modelctx(&workload, &echo), WAIT);
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));

    // The client authenticated by its key (`private_key_jwt`) rather than a secret: a key
    // that is not the registered one is refused.
    let keyed = home.path().join("keyed.json");
    let key_file = home.path().join("client-key.pem");
    let keyed_login = |pem: &str| {
        std::fs::write(&key_file, pem).unwrap();
        let args = ["login", &url, "--client-credentials", "--client-id", KEYED_CLIENT, "--private-key"];
        let mut login = modelctx(&keyed, &args);
        login.arg(&key_file);
        run_bounded(login, WAIT)
    };
    let stranger = p256::ecdsa::SigningKey::from_slice(&[99u8; 32]).unwrap();
    let refused = keyed_login(&crate::support::authorization_server::pkcs8_pem(&stranger));
    assert_eq!(refused.status.code(), Some(4), "{}", String::from_utf8_lossy(&refused.stderr));
    let logged_in = keyed_login(&authorization.keyed_client_pem());
    assert!(logged_in.status.success(), "{}", String::from_utf8_lossy(&logged_in.stderr));
    let called = run_bounded(modelctx(&keyed, &echo), WAIT);
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));

    let grants = authorization.record.lock().unwrap().grants.clone();
    assert!(grants.contains(&"client_credentials".to_owned()), "{grants:?}");
    assert!(grants.contains(&"urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned()), "{grants:?}");
    assert!(!grants.contains(&"authorization_code".to_owned()), "no person was asked: {grants:?}");
}
