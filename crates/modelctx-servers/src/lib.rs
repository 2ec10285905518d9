//! The reference servers of modelctx, each a [`ServerBuilder`](modelctx::server::ServerBuilder)
//! the caller builds and serves: `modelctx serve NAME` runs any of them over stdio or HTTP,
//! and the `modelctx-everything` binary runs `everything` over stdio alone, small and quick to
//! start, for hosts to spawn.

pub mod bench;
pub mod conformance;
pub mod everything;
#[cfg(feature = "fetch")]
pub mod fetch;
#[cfg(target_os = "linux")]
pub mod filesystem;
pub mod git;
#[cfg(feature = "guard")]
pub mod guard;
#[cfg(feature = "memory")]
pub mod memory;
pub mod process;
#[cfg(feature = "time")]
pub mod time;
