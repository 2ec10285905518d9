//! Task status, shared by 2025-11-25 core tasks and the 2026-07-28 tasks extension.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// The status of a task (`TaskStatus`).
///
/// A task starts `working`; `working` and `input_required` may move to each other or to a
/// terminal status; `completed`, `failed` and `cancelled` are terminal and never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The task waits for input (extension: answered via `tasks/update`; 2025-11-25: the
    /// receiver sends requests tagged with the task).
    InputRequired,
    /// The request finished with a result (in the extension, including a tool result
    /// with `isError: true`).
    Completed,
    /// The request failed: with a JSON-RPC error (extension), or also with a tool result
    /// with `isError: true` (2025-11-25).
    Failed,
    /// The request was cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the status is final: `completed`, `failed` or `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// Whether a task in `self` may next be reported in `next`, per the state diagram: a
    /// non-terminal status may become any status (or stay, to update `statusMessage`); a
    /// terminal status never changes.
    pub fn can_transition_to(self, next: Self) -> bool {
        self == next || !self.is_terminal()
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads a member that must be present but may be `null` (`ttlMs: number | null`): serde's
/// default would let an absent `Option` member through as `None`.
pub(crate) fn required_nullable<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    Option::<u64>::deserialize(deserializer)
}
