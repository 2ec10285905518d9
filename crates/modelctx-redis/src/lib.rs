//! # modelctx-redis
//!
//! Redis stores for [modelctx] servers, so that many instances behind a load
//! balancer serve as one: legacy sessions and the event logs of their streams
//! ([`RedisSessionStore`], [`RedisEventStore`]), tasks ([`RedisTaskStore`]), the bus that carries
//! changes and legacy answers between instances ([`RedisBus`]), what may be used only once
//! ([`RedisOnceStore`]), call budgets ([`RedisRateStore`]) and the shared, rotating
//! `requestState` keys ([`state_keys`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use modelctx::server::Server;
//! use modelctx::transport::http::HttpOptions;
//! use modelctx_redis::{Redis, RedisOptions, StateKeyRotation};
//!
//! # async fn run(builder: modelctx::server::ServerBuilder) -> Result<(), Box<dyn std::error::Error>> {
//! let redis = Redis::connect("redis://127.0.0.1:6379", RedisOptions::default()).await?;
//! let server = builder
//!     .task_store(Arc::new(redis.task_store()))
//!     .bus(Arc::new(redis.bus()))
//!     .request_state_keys(modelctx_redis::state_keys(&redis, StateKeyRotation::default()).await?)
//!     .build()?;
//! let options = HttpOptions {
//!     stores: Some(redis.http_stores(Duration::from_secs(1800), 10_000)),
//!     ..HttpOptions::default()
//! };
//! # let _ = (server, options);
//! # Ok(())
//! # }
//! ```
//!
//! Every key lives under one namespace (`modelctx:` by default, [`RedisOptions::namespace`]),
//! so several deployments can share a Redis. Every store operation is bounded by
//! [`RedisOptions::command_timeout`]; while Redis is unreachable, operations fail at once with
//! an error saying so (the client gets `-32603`, never a hang), and the connection comes back
//! by itself with backoff. Scripts touch keys they compute, so the stores need one Redis (or a
//! primary with replicas), not Redis Cluster.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bus;
mod connection;
mod events;
mod once;
mod rate;
mod sessions;
mod state_keys;
mod tasks;

pub use bus::RedisBus;
pub use connection::{Redis, RedisOptions};
pub use events::{RedisEventLimits, RedisEventStore};
pub use once::RedisOnceStore;
pub use rate::RedisRateStore;
pub use sessions::RedisSessionStore;
pub use state_keys::{StateKeyRotation, state_keys};
pub use tasks::RedisTaskStore;
