//! `modelctx route`: the era router and the typed wire applied to a transcript.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use modelctx_protocol::era::{self, PeerState, Route, ServerVersions, Transport};
use modelctx_protocol::jsonrpc::{Message, parse_message};
use modelctx_protocol::{Era, v2025, v2026};
use serde_json::{Value, json};

/// Arguments of `modelctx route`.
#[derive(Args)]
pub struct RouteArgs {
    /// The transcript, one JSON-RPC message per line; standard input when absent or `-`.
    file: Option<PathBuf>,
    /// Serve 2026-07-28 only (refuse `initialize`), as a modern-only server would.
    #[arg(long)]
    modern_only: bool,
    /// Print one JSON object per message instead of a table.
    #[arg(long)]
    json: bool,
}

/// What happened to one line.
struct Verdict {
    line: usize,
    summary: String,
    era: Option<Era>,
    outcome: String,
    shape: Option<Result<(), String>>,
}

/// Runs the command: exit 0 once the transcript is read (verdicts are output, not failures),
/// 2 when the input itself cannot be read.
pub fn run(args: &RouteArgs) -> ExitCode {
    let input: Box<dyn Read> = match &args.file {
        Some(path) if path.as_os_str() != "-" => match std::fs::File::open(path) {
            Ok(file) => Box::new(file),
            Err(e) => {
                eprintln!("modelctx: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        _ => Box::new(std::io::stdin()),
    };
    let versions = if args.modern_only { ServerVersions::modern_only() } else { ServerVersions::default() };
    let mut peer = PeerState::NoSession;
    for (index, line) in BufReader::new(input).lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                eprintln!("modelctx: read error: {e}");
                return ExitCode::from(2);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let verdict = judge(index + 1, line.as_bytes(), &mut peer, &versions);
        if args.json {
            println!("{}", as_json(&verdict));
        } else {
            println!("{}", as_row(&verdict));
        }
    }
    ExitCode::SUCCESS
}

fn judge(line: usize, bytes: &[u8], peer: &mut PeerState, versions: &ServerVersions) -> Verdict {
    let message = match parse_message(bytes) {
        Ok(message) => message,
        Err(failure) => {
            return Verdict {
                line,
                summary: "unreadable".into(),
                era: None,
                outcome: format!("error {}: {}", failure.error.code.0, failure.error.message),
                shape: None,
            };
        }
    };
    let summary = describe(&message);
    let route = era::route(&message, &Transport::Stdio, peer, versions);
    let outcome = match &route {
        Route::Modern(v) => format!("modern {v}"),
        Route::Legacy(v) => format!("legacy session {v}"),
        Route::Initialize(v) => {
            *peer = PeerState::Session(*v);
            format!("opens legacy session at {v}")
        }
        Route::Reject(rejection) => {
            format!("rejected {}: {}", rejection.error.code.0, rejection.error.message)
        }
        Route::Ignore(why) => format!("ignored: {why}"),
    };
    let shape = route.era().and_then(|era| check_shape(&message, era));
    Verdict { line, summary, era: route.era(), outcome, shape }
}

fn describe(message: &Message) -> String {
    match message {
        Message::Request(r) => format!("request {} {}", r.id, r.method),
        Message::Notification(n) => format!("notification {}", n.method),
        Message::Response(r) => format!("response {}", r.id),
        Message::Error(e) => {
            format!("error response {}", e.id.as_ref().map_or("-".into(), ToString::to_string))
        }
    }
}

/// Parses a client request or notification into its revision's typed union.
fn check_shape(message: &Message, era: Era) -> Option<Result<(), String>> {
    let value = serde_json::to_value(message).ok()?;
    let parsed = match (message, era) {
        (Message::Request(_), Era::Modern) => serde_json::from_value::<v2026::ClientRequest>(value).map(drop),
        (Message::Request(_), Era::Legacy) => serde_json::from_value::<v2025::ClientRequest>(value).map(drop),
        (Message::Notification(_), Era::Modern) => {
            serde_json::from_value::<v2026::ClientNotification>(value).map(drop)
        }
        (Message::Notification(_), Era::Legacy) => {
            serde_json::from_value::<v2025::ClientNotification>(value).map(drop)
        }
        _ => return None,
    };
    Some(parsed.map_err(|e| e.to_string()))
}

fn as_row(verdict: &Verdict) -> String {
    let mut row = format!("{:>3}  {:<44} {}", verdict.line, verdict.summary, verdict.outcome);
    match &verdict.shape {
        Some(Ok(())) => row.push_str("  [shape ok]"),
        Some(Err(e)) => {
            let _ = write!(row, "  [shape: {e}]");
        }
        None => {}
    }
    row
}

fn as_json(verdict: &Verdict) -> Value {
    json!({
        "line": verdict.line,
        "message": verdict.summary,
        "era": verdict.era.map(|era| match era { Era::Modern => "modern", Era::Legacy => "legacy" }),
        "outcome": verdict.outcome,
        "shape": verdict.shape.as_ref().map(|s| match s {
            Ok(()) => json!("ok"),
            Err(e) => json!(e),
        }),
    })
}
