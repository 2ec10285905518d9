//! Links the `modelctx` binary as a position-dependent executable on Linux.
//!
//! A position-independent executable carries a relocation for every pointer in its read-only
//! data (vtables, string tables: 1.8 MB of relocations for this binary), and the dynamic
//! loader applies them all at each start, copying 1.4 MB of pages. A host spawns `modelctx
//! serve` once per session, so each spawn paid both: 2.6 MB more resident memory and a quarter
//! of the start-up's instructions (docs/architecture.md, "Small where a host spawns it"). The
//! price is the executable's own code at a fixed address (libraries, stack and heap are still
//! randomised), as Go links its binaries by default. `MODELCTX_PIE=1` keeps the position-
//! independent link.

fn main() {
    println!("cargo:rerun-if-env-changed=MODELCTX_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let keep_pie = std::env::var("MODELCTX_PIE").is_ok_and(|value| value == "1");
    if linux && !keep_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
