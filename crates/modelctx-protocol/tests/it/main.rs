//! The integration tests of this crate, one module per topic, linked into one binary.

mod envelope;
mod era_router;
mod error_codes;
mod model_conversions;
#[cfg(feature = "experimental")]
mod server_card;
#[macro_use]
mod support;
mod wire_v2025;
mod wire_v2026;
