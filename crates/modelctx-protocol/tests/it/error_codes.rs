//! BASE-13, BASE-14: the error codes the workspace's own code uses, read from its sources.
//! Below `-32019` only `-32002` (resource not found, 2025-11-25) is used, and never given
//! another meaning; in `-32020…-32099` only the codes the specification defines are. A draft
//! extension's own code is allowed in the one file that implements that draft.

use std::path::{Path, PathBuf};

/// The codes of `-32000…-32099` the specification defines, with their revision.
const DEFINED: [i64; 5] = [-32002, -32020, -32021, -32022, -32042];

/// Codes a draft extension's text gives, allowed only in the source file that implements that
/// draft: SEP-2624's interceptor timeout, SEP-3415's provisional codes.
const DRAFTS: [(i64, &str); 6] = [
    (-32000, "modelctx-protocol/src/interceptors.rs"),
    (-32023, "modelctx-protocol/src/events.rs"),
    (-32024, "modelctx-protocol/src/events.rs"),
    (-32025, "modelctx-protocol/src/events.rs"),
    (-32026, "modelctx-protocol/src/events.rs"),
    (-32027, "modelctx-protocol/src/events.rs"),
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The integer literals of `text` that fall in `-32000…-32099`, with their line numbers.
fn reserved_codes(text: &str) -> Vec<(usize, i64)> {
    let mut codes = Vec::new();
    for (line, content) in text.lines().enumerate() {
        let bytes = content.as_bytes();
        let mut at = 0;
        while let Some(found) = content[at..].find("-320") {
            let start = at + found + 1;
            let digits: String = content[start..].chars().take_while(char::is_ascii_digit).collect();
            let before_digit = at + found > 0 && bytes[at + found - 1].is_ascii_digit();
            if digits.len() == 5 && !before_digit {
                let code = -digits.parse::<i64>().unwrap();
                if (-32099..=-32000).contains(&code) {
                    codes.push((line + 1, code));
                }
            }
            at = start;
        }
    }
    codes
}

#[test]
fn base_13_14_only_defined_codes_are_used_in_the_reserved_ranges() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for crate_dir in ["modelctx-protocol", "modelctx", "modelctx-cli", "modelctx-redis"] {
        sources(&root.join(crate_dir).join("src"), &mut files);
    }
    assert!(files.len() > 50, "the sources were found: {}", files.len());
    let mut undefined = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, code) in reserved_codes(&text) {
            let drafted = DRAFTS.iter().any(|(drafted, path)| *drafted == code && file.ends_with(path));
            if !DEFINED.contains(&code) && !drafted {
                undefined.push(format!("{}:{line}: {code}", file.display()));
            }
        }
    }
    assert!(undefined.is_empty(), "codes the specification does not define: {undefined:#?}");
}

#[test]
fn the_scan_finds_reserved_codes_and_nothing_else() {
    let text = "let a = -32010;\nlet b = ErrorCode(-32021); let c = -32700; let d = 1-32005;\n// -320999";
    assert_eq!(reserved_codes(text), [(1, -32010), (2, -32021)]);
}
