//! The integration tests of this crate, one module per topic, linked into one binary.

mod bench;
mod cli;
mod cli_host;
mod client_stdio;
mod demo;
mod deployment;
mod filesystem;
mod fixtures_asking;
mod fixtures_content;
mod fixtures_input_required;
mod fixtures_listing;
mod fixtures_prompts;
mod fixtures_resources;
mod fixtures_triggers;
mod gateway;
mod host;
mod inspector_web;
mod oauth;
mod otel;
mod peer_servers;
mod reference_servers;
mod route;
mod serve_everything;
mod soak;
mod support;
mod two_instances;
