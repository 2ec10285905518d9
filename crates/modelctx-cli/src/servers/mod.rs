//! The reference servers `modelctx serve` runs.

pub mod bench;
pub mod conformance;
pub mod everything;
pub mod fetch;
#[cfg(target_os = "linux")]
pub mod filesystem;
pub mod git;
pub mod memory;
pub mod time;
