//! Tasks across eras: 2025-11-25 experimental core tasks (`ttl`, `pollInterval`) and the
//! 2026-07-28 `io.modelcontextprotocol/tasks` extension (`ttlMs`, `pollIntervalMs`).

use crate::{tasks, v2025};

/// The neutral task (the extension's shape).
pub type Task = tasks::Task;

impl From<v2025::Task> for tasks::Task {
    fn from(task: v2025::Task) -> Self {
        let v2025::Task { task_id, status, status_message, created_at, last_updated_at, ttl, poll_interval } =
            task;
        Self {
            task_id,
            status,
            status_message,
            created_at,
            last_updated_at,
            ttl_ms: ttl,
            poll_interval_ms: poll_interval,
        }
    }
}

impl From<tasks::Task> for v2025::Task {
    fn from(task: tasks::Task) -> Self {
        let tasks::Task {
            task_id,
            status,
            status_message,
            created_at,
            last_updated_at,
            ttl_ms,
            poll_interval_ms,
        } = task;
        Self {
            task_id,
            status,
            status_message,
            created_at,
            last_updated_at,
            ttl: ttl_ms,
            poll_interval: poll_interval_ms,
        }
    }
}
