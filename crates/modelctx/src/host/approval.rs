//! The approval hook: asked before a call to a tool whose annotations say it may destroy
//! data or reach the world outside.
//!
//! The spec's defaults decide when a hint is absent (`ToolAnnotations`): `readOnlyHint`
//! false, `destructiveHint` true (meaningful only when not read-only), `openWorldHint` true.
//! So a tool is *destructive* unless it is read-only or says `destructiveHint: false`, and
//! *open-world* unless it says `openWorldHint: false`; a tool with no annotations is both.
//! Annotations are the server's own claims: the hook is a safeguard for the servers the
//! configuration trusts, not a sandbox.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::types::ToolAnnotations;
use serde::Serialize;
use serde_json::Value;

/// What makes a call need approval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Risk {
    /// The tool may destroy data: not read-only, and `destructiveHint` not false.
    pub destructive: bool,
    /// The tool may reach external entities: `openWorldHint` not false.
    pub open_world: bool,
}

impl Risk {
    /// The risk the annotations describe, with the spec's defaults for absent hints.
    pub fn of(annotations: Option<&ToolAnnotations>) -> Self {
        let hint = |get: fn(&ToolAnnotations) -> Option<bool>| annotations.and_then(get);
        let read_only = hint(|a| a.read_only_hint).unwrap_or(false);
        Self {
            destructive: !read_only && hint(|a| a.destructive_hint).unwrap_or(true),
            open_world: hint(|a| a.open_world_hint).unwrap_or(true),
        }
    }

    /// Whether a call needs approval.
    pub fn needs_approval(self) -> bool {
        self.destructive || self.open_world
    }
}

/// A call waiting for approval.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The server's name in the configuration.
    pub server: String,
    /// The tool's name on its server.
    pub tool: String,
    /// The tool's name in the host's registry.
    pub name: String,
    /// The call's arguments.
    pub arguments: Value,
    /// The tool's annotations, as the server listed them.
    pub annotations: Option<ToolAnnotations>,
    /// Why approval is asked.
    pub risk: Risk,
}

/// The hook's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    /// Make the call.
    Approve,
    /// Do not make the call; the reason goes into the error the caller gets.
    Deny(String),
}

type Hook = Arc<dyn Fn(ApprovalRequest) -> BoxFuture<'static, Approval> + Send + Sync>;

/// An async callback that approves or denies risky calls (usually by asking the user).
#[derive(Clone)]
pub struct ApprovalHook(Hook);

impl ApprovalHook {
    /// A hook that runs `decide` for each risky call.
    pub fn new<F, Fut>(decide: F) -> Self
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Approval> + Send + 'static,
    {
        Self(Arc::new(move |request| Box::pin(decide(request))))
    }

    /// A hook that approves every call: for a caller that is itself the approver (a person
    /// typing the call on a command line).
    pub fn approve_all() -> Self {
        Self::new(|_| async { Approval::Approve })
    }

    /// Asks about `request`.
    pub(crate) async fn decide(&self, request: ApprovalRequest) -> Approval {
        (self.0)(request).await
    }
}

impl fmt::Debug for ApprovalHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApprovalHook")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotations(
        read_only: Option<bool>,
        destructive: Option<bool>,
        open_world: Option<bool>,
    ) -> ToolAnnotations {
        ToolAnnotations {
            read_only_hint: read_only,
            destructive_hint: destructive,
            open_world_hint: open_world,
            ..Default::default()
        }
    }

    #[test]
    fn absent_hints_take_the_spec_defaults() {
        assert_eq!(Risk::of(None), Risk { destructive: true, open_world: true });
        assert_eq!(Risk::of(Some(&ToolAnnotations::default())), Risk { destructive: true, open_world: true });
    }

    #[test]
    fn read_only_or_non_destructive_tools_are_not_destructive() {
        let read_only = annotations(Some(true), None, Some(false));
        assert_eq!(Risk::of(Some(&read_only)), Risk::default());
        assert!(!Risk::of(Some(&read_only)).needs_approval());
        // destructiveHint is meaningful only when the tool is not read-only.
        let read_only_but_destructive = annotations(Some(true), Some(true), Some(false));
        assert!(!Risk::of(Some(&read_only_but_destructive)).needs_approval());
        let additive = annotations(Some(false), Some(false), Some(false));
        assert!(!Risk::of(Some(&additive)).needs_approval());
        let destructive = annotations(Some(false), Some(true), Some(false));
        assert_eq!(Risk::of(Some(&destructive)), Risk { destructive: true, open_world: false });
    }

    #[test]
    fn open_world_unless_it_says_otherwise() {
        let closed = annotations(Some(true), None, Some(false));
        assert!(!Risk::of(Some(&closed)).open_world);
        let silent = annotations(Some(true), None, None);
        assert_eq!(Risk::of(Some(&silent)), Risk { destructive: false, open_world: true });
        assert!(Risk::of(Some(&silent)).needs_approval());
    }
}
