//! The version-neutral model handlers work with, and its conversions to and from each
//! revision's wire shapes.
//!
//! The neutral shape of a type is its 2026-07-28 shape without the members that only exist
//! to carry per-request protocol state (`resultType`, cache hints, the required `_meta`, MRTR
//! retry members): those are the runtime's business. Where 2025-11-25 differs in meaning —
//! `structuredContent` must be an object, resource-not-found is `-32002`, tasks are the
//! experimental core tasks rather than the extension, capabilities carry `tasks` and
//! `roots.listChanged` instead of `extensions`, URL elicitation needs an `elicitationId` —
//! the conversion says so in its signature (`TryFrom`, an extra argument) and destructures
//! both sides exhaustively, so a field added to either revision is a compile error here
//! until someone decides what the other revision does with it.

mod call_tool;
mod capabilities;
mod elicitation;
mod errors;
mod tasks;
mod tools;

pub use call_tool::{CallToolResult, StructuredContentNotObject};
pub use capabilities::{ClientCapabilities, ServerCapabilities};
pub use elicitation::{ElicitRequest, MissingElicitationId};
pub use errors::resource_not_found;
pub use tasks::Task;
pub use tools::{Tool, legacy_create_message, legacy_tool};
