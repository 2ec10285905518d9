//! `modelctx discover` (what the server is) and `modelctx ping`.

use std::time::Instant;

use modelctx::client::Client;
use modelctx::protocol::{Era, v2026};
use serde_json::{Value, json};

use super::exit::Failure;
use super::output::{BOLD, DIM, GREEN, OutputArgs, out, print_json};
use super::{ServerArgs, drive};

/// The names of the capabilities a server declared, with their flags: `tools (listChanged)`.
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
            if flags.is_empty() { name.clone() } else { format!("{name} ({})", flags.join(", ")) }
        })
        .collect()
}

/// What the connection settled on, as JSON.
fn description(client: &Client) -> Value {
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
    let description = description(client);
    if output.json {
        print_json(&description);
        return Ok(());
    }
    let server = client.server();
    match &server.info {
        Some(info) => {
            let title = info.title.as_deref().map(|t| format!(" — {t}")).unwrap_or_default();
            out!("{BOLD}{} {}{BOLD:#}{title}", info.name, info.version);
        }
        None => out!("{BOLD}(the server did not name itself){BOLD:#}"),
    }
    let era = match client.era() {
        Era::Modern => "stateless, server/discover",
        Era::Legacy => "initialize handshake",
    };
    out!("protocol      {GREEN}{}{GREEN:#} {DIM}({era}){DIM:#}", server.version);
    out!("capabilities  {}", capability_names(&description["capabilities"]).join(", "));
    if let Some(instructions) = &server.instructions {
        out!("instructions  {instructions}");
    }
    Ok(())
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

/// Runs `modelctx discover`.
pub fn run_discover(args: &ServerArgs) -> std::process::ExitCode {
    drive(&args.target, async |client| discover(client, args.output).await)
}

/// Runs `modelctx ping`.
pub fn run_ping(args: &ServerArgs) -> std::process::ExitCode {
    drive(&args.target, async |client| ping(client, args.output).await)
}
