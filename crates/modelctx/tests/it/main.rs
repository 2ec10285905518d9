//! The integration tests of this crate, one module per topic, linked into one binary.

mod apps;
mod base;
mod client;
mod client_cache;
mod client_http;
mod client_listen;
mod client_tasks;
mod common;
mod dynamic;
mod eras;
#[cfg(feature = "experimental")]
mod ext_definition_tags;
#[cfg(feature = "experimental")]
mod ext_event_webhooks;
#[cfg(feature = "experimental")]
mod ext_events;
#[cfg(feature = "experimental")]
mod ext_http_lists;
#[cfg(feature = "experimental")]
mod ext_interceptors;
#[cfg(feature = "experimental")]
mod ext_server_card;
#[cfg(feature = "stdio-v2")]
mod ext_stdio_v2;
mod extractors;
mod front_desk;
mod hostile;
mod http;
mod http_sse;
mod http_streams;
mod input;
mod legacy_tasks;
mod middleware;
mod oauth_client;
mod prompts;
mod resource_server;
mod resources;
mod security;
mod skills;
mod subscriptions;
mod tasks;
mod tls;
mod tool_macro;
mod tools;
mod utilities;
