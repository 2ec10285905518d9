//! `modelctx route` as a person runs it: the real binary on the bundled transcript.

use std::io::Write;
use std::process::{Command, Stdio};

fn modelctx() -> Command {
    Command::new(env!("CARGO_BIN_EXE_modelctx"))
}

const TRANSCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/dual-era-transcript.jsonl");

#[test]
fn routes_the_dual_era_transcript() {
    let output = modelctx().args(["route", TRANSCRIPT]).output().expect("modelctx runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 14, "{text}");
    assert!(lines[0].contains("server/discover") && lines[0].contains("modern 2026-07-28  [shape ok]"));
    assert!(lines[2].contains("rejected -32022"));
    assert!(lines[3].contains("rejected -32602"));
    assert!(lines[4].contains("[shape: missing field `name`]"));
    assert!(lines[5].contains("opens legacy session at 2025-06-18"));
    assert!(lines[7].contains("legacy session 2025-06-18"));
    assert!(lines[10].contains("modern 2026-07-28"), "a modern request inside a legacy session stays modern");
    assert!(lines[11].contains("batch arrays are not supported"));
}

#[test]
fn modern_only_json_output_from_stdin() {
    let mut child = modelctx()
        .args(["route", "--modern-only", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("modelctx runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        )
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let verdict: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(verdict["era"], serde_json::Value::Null);
    assert!(verdict["outcome"].as_str().unwrap().starts_with("rejected -32022"), "{verdict}");
}

#[test]
fn an_unreadable_file_is_exit_code_2() {
    let output = modelctx().args(["route", "/nonexistent/transcript.jsonl"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
}
