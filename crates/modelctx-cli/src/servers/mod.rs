//! The reference servers `modelctx serve` runs.

pub mod conformance;
pub mod everything;
