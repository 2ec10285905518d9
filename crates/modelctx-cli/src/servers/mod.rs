//! The reference servers `modelctx serve` runs.

pub mod everything;
