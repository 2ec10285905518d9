//! `modelctx discover` (what the server is) and `modelctx ping`.

use std::time::Instant;

use modelctx::client::Client;
use modelctx::protocol::{Era, v2026};
use serde_json::{Value, json};

use super::exit::Failure;
use super::output::{BOLD, DIM, GREEN, OutputArgs, out, print_json, shown};
use super::{ServerArgs, drive};

/// The names of the capabilities a server declared, with their flags: `tools (listChanged)`;
/// made inert for a terminal (an extension's name is the server's to choose).
fn capability_names(capabilities: &Value) -> Vec<String> {
    let Some(capabilities) = capabilities.as_object() else { return Vec::new() };
    capabilities
        .iter()
        .map(|(name, value)| {
            let flags: Vec<&str> = value
                .as_object()
                .map(|flags| {
                    flags
                        .iter()
                        .filter(|(_, on)| on.as_bool() == Some(true))
                        .map(|(k, _)| k.as_str())
                        .collect()
                })
                .unwrap_or_default();
            let name = shown(name, false);
            if flags.is_empty() {
                name.into_owned()
            } else {
                let flags: Vec<_> = flags.into_iter().map(|flag| shown(flag, false)).collect();
                format!("{name} ({})", flags.join(", "))
            }
        })
        .collect()
}

/// What the connection settled on, as JSON.
pub(super) fn describe_connection(client: &Client) -> Value {
    let server = client.server();
    let capabilities = serde_json::to_value(v2026::ServerCapabilities::from(server.capabilities.clone()))
        .unwrap_or_default();
    json!({
        "protocolVersion": server.version.to_string(),
        "era": match client.era() { Era::Modern => "modern", Era::Legacy => "legacy" },
        "serverInfo": server.info,
        "capabilities": capabilities,
        "instructions": server.instructions,
    })
}

async fn discover(client: &Client, output: OutputArgs) -> Result<(), Failure> {
    if output.json {
        print_json(&describe_connection(client));
    } else {
        print_connection(client);
    }
    Ok(())
}

/// What the connection settled on, for a person.
pub(super) fn print_connection(client: &Client) {
    let server = client.server();
    out!("{}", heading(server.info.as_ref()));
    let era = match client.era() {
        Era::Modern => "stateless, server/discover",
        Era::Legacy => "initialize handshake",
    };
    out!("protocol      {GREEN}{}{GREEN:#} {DIM}({era}){DIM:#}", server.version);
    out!("capabilities  {}", capability_names(&describe_connection(client)["capabilities"]).join(", "));
    if let Some(instructions) = &server.instructions {
        out!("instructions  {}", shown(instructions, true));
    }
}

/// The first line of the discover view: the server's name, version and title, made inert for a
/// terminal (a name carrying an escape sequence could set the clipboard or retitle the window).
fn heading(info: Option<&modelctx::protocol::types::Implementation>) -> String {
    let Some(info) = info else { return format!("{BOLD}(the server did not name itself){BOLD:#}") };
    let title = info.title.as_deref().map(|t| format!(" — {}", shown(t, false))).unwrap_or_default();
    format!("{BOLD}{} {}{BOLD:#}{title}", shown(&info.name, false), shown(&info.version, false))
}

async fn ping(client: &Client, output: OutputArgs) -> Result<(), Failure> {
    let started = Instant::now();
    client.ping().await?;
    let elapsed = started.elapsed();
    if output.json {
        print_json(&json!({"ok": true, "milliseconds": elapsed.as_secs_f64() * 1000.0}));
    } else {
        out!("{GREEN}pong{GREEN:#} in {:.2} ms", elapsed.as_secs_f64() * 1000.0);
    }
    Ok(())
}

/// Runs `modelctx discover` without a card.
pub(super) fn run_discover(args: &ServerArgs) -> std::process::ExitCode {
    drive(&args.target, async |client| discover(client, args.output).await)
}

/// Runs `modelctx ping`.
pub fn run_ping(args: &ServerArgs) -> std::process::ExitCode {
    drive(&args.target, async |client| ping(client, args.output).await)
}

#[cfg(test)]
mod tests {
    use modelctx::protocol::types::Implementation;
    use serde_json::json;

    use super::{capability_names, heading};

    #[test]
    fn what_a_server_names_reaches_the_terminal_inert() {
        let mut info = Implementation::new("evil\u{1b}]52;c;ZXZpbA==\u{7}", "1\u{1b}[2J");
        info.title = Some("t\u{1b}]0;owned\u{7}".into());
        let line = heading(Some(&info));
        assert!(line.contains("evil\\u{1b}]52;c;ZXZpbA==\\u{7}"), "{line}");
        let server_text = line.replace("\u{1b}[1m", "").replace("\u{1b}[0m", "");
        assert!(!server_text.contains(['\u{1b}', '\u{7}']), "{line:?}");
        let names = capability_names(&json!({"extensions": {}, "x\u{1b}]52;c;eA==\u{7}": {"a\u{1b}": true}}));
        assert!(names.iter().all(|name| !name.contains(['\u{1b}', '\u{7}'])), "{names:?}");
    }
}
