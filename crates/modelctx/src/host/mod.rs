//! The host: many servers at once, from the configuration files AI applications keep
//! (feature `host`). So far: reading those files ([`config`]).

pub mod config;

pub use config::{ConfigError, HostConfig, ServerConfig};
