//! Progress reports handed to a callback, with a time limit that each report starts again.

use std::sync::atomic::Ordering;

use modelctx_protocol::JsonObject;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::meta;
use modelctx_protocol::model::CallToolResult;
use serde_json::{Value, json};

use super::wire::request_meta;
use super::{Client, ClientError, UNBOUNDED};

/// One progress report of a request (`notifications/progress`).
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// How far along, increasing with each report.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening, for a person.
    pub message: Option<String>,
}

impl Progress {
    /// The report in `note` if it is progress for `token`.
    fn for_token(note: &Notification, token: &str) -> Option<Self> {
        let params = note.params.as_ref().filter(|_| note.method == Method::Progress)?;
        if params.get("progressToken").and_then(Value::as_str) != Some(token) {
            return None;
        }
        Some(Self {
            progress: params.get("progress").and_then(Value::as_f64)?,
            total: params.get("total").and_then(Value::as_f64),
            message: params.get("message").and_then(Value::as_str).map(str::to_owned),
        })
    }
}

impl Client {
    /// Sends a request with a progress token, handing each `notifications/progress` for it to
    /// `on_progress`. The time limit starts again with each report when
    /// [`ClientOptions::reset_timeout_on_progress`](super::ClientOptions::reset_timeout_on_progress) is set.
    pub async fn request_with_progress(
        &self,
        method: impl Into<Method>,
        params: Value,
        mut on_progress: impl FnMut(Progress) + Send,
    ) -> Result<JsonObject, ClientError> {
        let Value::Object(mut params) = params else {
            return Err(ClientError::invalid_params("params must be an object"));
        };
        let token = format!("modelctx-progress-{}", self.progress_tokens.fetch_add(1, Ordering::Relaxed));
        request_meta(&mut params).insert(meta::PROGRESS_TOKEN.into(), json!(token));
        let mut notes = self.notifications();
        let limit = self.options.request_timeout;
        // The overall limit is kept here, where progress can extend it.
        let method = method.into();
        let call = self.request_within(&method, params, UNBOUNDED);
        tokio::pin!(call);
        let mut deadline = tokio::time::Instant::now() + limit;
        loop {
            tokio::select! {
                result = &mut call => {
                    // Reports read before the answer are still owed to the callback.
                    while let Ok(note) = notes.try_recv() {
                        if let Some(progress) = Progress::for_token(&note, &token) {
                            on_progress(progress);
                        }
                    }
                    return result;
                }
                note = notes.recv() => {
                    if let Ok(note) = note
                        && let Some(progress) = Progress::for_token(&note, &token)
                    {
                        on_progress(progress);
                        if self.options.reset_timeout_on_progress {
                            deadline = tokio::time::Instant::now() + limit;
                        }
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err(ClientError::timeout(method.clone(), limit));
                }
            }
        }
    }

    /// Calls tool `name`, reporting its progress to `on_progress`; see [`Client::call_tool`].
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        on_progress: impl FnMut(Progress) + Send,
    ) -> Result<CallToolResult, ClientError> {
        #[cfg(feature = "validation")]
        self.check_arguments(name, &arguments).await?;
        let params = self.call_params(name, arguments).await;
        let result = self.request_with_progress(Method::CallTool, params, on_progress).await?;
        self.tool_result(name, result).await
    }
}
