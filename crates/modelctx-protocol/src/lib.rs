//! # modelctx-protocol
//!
//! The Model Context Protocol on the wire, with no I/O: no async runtime, no sockets, no
//! clock. It holds
//!
//! - [`jsonrpc`]: the strict, bounded JSON-RPC 2.0 envelope and the error object;
//! - [`version`]: [`ProtocolVersion`] as a type with an ordering, and the [`Era`] it belongs to;
//! - [`types`]: the shapes both revisions share; [`v2026`] and [`v2025`]: every type of the
//!   2026-07-28 and 2025-11-25 schemas under the schema's own names; [`tasks`]: the
//!   `io.modelcontextprotocol/tasks` extension; [`model`]: the version-neutral model that
//!   handlers see, with conversions to and from each revision;
//! - [`era`]: the era router, a pure function that decides for each incoming message whether
//!   it follows modern (stateless) or legacy (session) rules, or must be rejected;
//! - [`headers`]: the Streamable HTTP header value encoding;
//! - [`uri_template`]: RFC 6570 resource URI templates: parse, expand, match a URI to one;
//! - with the `experimental` feature, the draft extensions of the next revision: `server_card`
//!   (SEP-2127), `http_lists` (lists over HTTP GET) and `definition_tags`.
//!
//! ```
//! use modelctx_protocol::era::{self, PeerState, ServerVersions, Transport};
//! use modelctx_protocol::jsonrpc::parse_message;
//!
//! let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
//!     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
//! let message = parse_message(line).unwrap();
//! let route = era::route(&message, &Transport::Stdio, &PeerState::NoSession, &ServerVersions::default());
//! assert!(route.is_modern());
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub(crate) mod macros;

pub mod apps;
#[cfg(feature = "experimental")]
pub mod definition_tags;
pub mod era;
#[cfg(feature = "experimental")]
pub mod events;
pub mod headers;
#[cfg(feature = "experimental")]
pub mod http_lists;
#[cfg(feature = "experimental")]
pub mod interceptors;
pub mod jsonrpc;
pub mod meta;
mod method;
pub mod model;
pub mod percent;
#[cfg(feature = "experimental")]
pub mod server_card;
pub mod skills;
pub mod tasks;
pub mod types;
pub mod uri_template;
pub mod v2025;
pub mod v2026;
pub mod version;

pub use method::Method;
pub use version::{Era, ProtocolVersion};

/// A JSON object: the type of `params`, `result`, `_meta` and schema documents.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// The contents of a `_meta` member. Reserved keys are in [`meta`].
pub type Meta = JsonObject;
