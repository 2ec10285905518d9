//! `modelctx demo`, the README's first command: every step of the tour works, in every
//! section (stdio and HTTP, both eras).

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn the_demo_tours_every_feature_and_every_step_works() {
    let mut demo = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    demo.arg("demo").env("NO_COLOR", "1").env_remove("RUST_LOG").stdin(Stdio::null());
    let output = crate::support::run_bounded(demo, Duration::from_secs(60));
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{shown}\n{}", String::from_utf8_lossy(&output.stderr));
    for section in [
        "stdio (2026-07-28, stateless)",
        "stdio (2025-11-25, initialize)",
        "Streamable HTTP (2026-07-28, stateless)",
        "Streamable HTTP (2025-11-25, a session)",
    ] {
        assert!(shown.contains(section), "no section {section:?} in\n{shown}");
    }
    assert!(!shown.contains('✗'), "{shown}");
    assert_eq!(
        shown.matches("\"Hello, Ada!\"").count(),
        4,
        "the elicitation answered in every section: {shown}"
    );
    assert_eq!(shown.matches("notifications/tools/list_changed").count(), 2, "{shown}");
    assert!(shown.contains("All 44 steps worked"), "{shown}");
}
