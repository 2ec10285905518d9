//! How the `modelctx` binary is linked on Linux: position-dependent, and with identical code
//! folded where the linker can.
//!
//! A host spawns `modelctx serve` once per session, so what each start costs is paid many
//! times (docs/architecture.md, "Small where a host spawns it: `modelctx serve`"):
//! - A position-independent executable carries a relocation for every pointer in its read-only
//!   data (vtables, string tables: 1.8 MB of relocations for this binary), and the dynamic
//!   loader applies them all at each start, copying 1.4 MB of pages: 2.6 MB of resident
//!   memory and a quarter of the start-up's instructions. The price of `-no-pie` is the
//!   executable's own code at a fixed address (libraries, stack and heap are still
//!   randomised), as Go links its binaries by default. `MODELCTX_PIE=1` keeps the PIE link.
//! - Identical code folding (`--icf=all`, lld's and gold's) keeps one copy of functions whose
//!   machine code is the same (monomorphised generics often are): a smaller text segment, so
//!   start-up touches fewer pages of it. It folds code only, never data, and Rust promises no
//!   function a unique address (`std::ptr::fn_addr_eq`). GNU ld has no such option, so it is
//!   passed only when a trial link with it succeeds.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-env-changed=MODELCTX_PIE");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os != "linux") {
        return;
    }
    let keep_pie = std::env::var("MODELCTX_PIE").is_ok_and(|value| value == "1");
    if !keep_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    if links_with("-Wl,--icf=all") {
        println!("cargo:rustc-link-arg-bins=-Wl,--icf=all");
    }
}

/// Whether an empty program links for this target with the link argument `argument` added,
/// with the linker and flags this build's own link uses.
fn links_with(argument: &str) -> bool {
    let (Some(rustc), Some(out), Some(target)) =
        (std::env::var_os("RUSTC"), std::env::var_os("OUT_DIR"), std::env::var_os("TARGET"))
    else {
        return false;
    };
    let out = PathBuf::from(out);
    let source = out.join("link_probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let mut probe = Command::new(rustc);
    probe.arg("--edition=2021").arg("--crate-type=bin").arg("--target").arg(target);
    probe.arg("-o").arg(out.join("link_probe")).arg(format!("-Clink-arg={argument}"));
    if let Some(linker) = std::env::var_os("RUSTC_LINKER") {
        probe.arg("-C").arg(format!("linker={}", linker.to_string_lossy()));
    }
    // The flags that choose the linker (`-Clinker-features`, `-Clink-self-contained`, …) as the
    // real link gets them.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    probe.args(flags.split('\u{1f}').filter(|flag| !flag.is_empty()));
    probe.arg(&source).stdout(Stdio::null()).stderr(Stdio::null());
    probe.status().is_ok_and(|status| status.success())
}
