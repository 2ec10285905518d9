//! Rate limits on tool calls through the gateway: rules that give each principal, each tool,
//! or each principal's use of each tool a budget of calls.
//!
//! ```json
//! {"mcpServers": {…},
//!  "rateLimits": [
//!    {"name": "per-caller", "calls": 60, "perMs": 60000, "by": ["principal"]},
//!    {"name": "exports", "tools": ["search__export*"], "calls": 5, "perMs": 60000, "by": ["principal", "tool"]},
//!    {"name": "search-total", "tools": ["search__*"], "calls": 100, "perMs": 1000}
//!  ]}
//! ```
//!
//! A rule applies to the tools its `tools` patterns match (`*` for any run of characters; every
//! tool when it has none) and keeps one budget for each value of its `by`: `principal` (the
//! verified issuer and subject; every caller without a token shares one budget), `tool` (the
//! gateway's name of the tool), both, or — with no `by` — one for all calls together. A
//! budget allows a burst of `calls`, then one more every `perMs / calls` (GCRA): no window of
//! `perMs` holds more than `calls`. A call takes from the budget of every rule that applies,
//! in the order written, and is refused at the first one spent, with `-32603` naming the rule
//! and the time to wait (`data.retryAfterMs`); calls a policy refuses take nothing.
//!
//! Budgets live in a [`RateStore`]: in memory by default, or in Redis (`modelctx-redis`) so
//! that every gateway sharing it shares them — the limit holds across instances. While the
//! store cannot be reached, calls are let through and the failure is logged: a rate limit that
//! cannot count does not take the gateway down with it.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use modelctx_protocol::jsonrpc::ErrorObject;
use serde::Deserialize;
use serde_json::Value;

use super::Current;
use crate::host::config::matches;
use crate::server::Principal;
use crate::server::middleware::{McpRequest, describe_rate, over_budget};
use crate::store::{Rate, RateStore};

/// The gateway's rate limits, in the order written.
#[derive(Clone, Debug, Default)]
pub struct RateLimits {
    rules: Vec<LimitRule>,
}

/// One rule as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LimitRule {
    /// Named in refusals, and part of its budgets' keys.
    name: String,
    /// The tools it applies to; every tool when empty.
    #[serde(default)]
    tools: Vec<String>,
    calls: u32,
    per_ms: u64,
    /// What each budget is for.
    #[serde(default)]
    by: BTreeSet<By>,
}

/// What a rule keeps one budget for each of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "camelCase")]
enum By {
    Principal,
    Tool,
}

impl RateLimits {
    /// The rules of a configuration's `rateLimits` (an array); an error names the rule and
    /// what is wrong.
    pub fn from_json(rules: &Value) -> Result<Self, String> {
        let Value::Array(rules) = rules else {
            return Err(format!("\"rateLimits\" must be an array of rules, not {rules}"));
        };
        let mut names = BTreeSet::new();
        let rules = rules
            .iter()
            .enumerate()
            .map(|(at, rule)| {
                let rule = serde_path_to_error::deserialize::<_, LimitRule>(rule.clone())
                    .map_err(|e| format!("rateLimits[{at}]: {}: {}", e.path(), e.inner()))?;
                if rule.calls == 0 || rule.per_ms == 0 {
                    return Err(format!("rateLimits[{at}]: \"calls\" and \"perMs\" must be at least 1"));
                }
                if !names.insert(rule.name.clone()) {
                    return Err(format!("rateLimits[{at}]: another rule is called {:?}", rule.name));
                }
                Ok(rule)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { rules })
    }
}

impl LimitRule {
    fn rate(&self) -> Rate {
        Rate::new(self.calls, Duration::from_millis(self.per_ms))
    }

    fn applies_to(&self, tool: &str) -> bool {
        self.tools.is_empty() || self.tools.iter().any(|pattern| matches(pattern, tool))
    }

    /// The key of the budget a call of `tool` by `principal` takes from.
    fn key(&self, principal: Option<&Principal>, tool: &str) -> String {
        let mut key = format!("rate\u{1f}{}", self.name);
        if self.by.contains(&By::Principal) {
            let who = principal.map_or_else(
                || "anonymous".to_owned(),
                |p| format!("{} {}", p.issuer.as_deref().unwrap_or_default(), p.subject),
            );
            key.push('\u{1f}');
            key.push_str(&who);
        }
        if self.by.contains(&By::Tool) {
            key.push('\u{1f}');
            key.push_str(tool);
        }
        key
    }

    /// How the budget reads in a refusal.
    fn describe(&self) -> String {
        let each = match (self.by.contains(&By::Principal), self.by.contains(&By::Tool)) {
            (true, true) => " for each caller and tool",
            (true, false) => " for each caller",
            (false, true) => " for each tool",
            (false, false) => " for all callers together",
        };
        format!("rule {:?} allows {}{each}", self.name, describe_rate(self.rate()))
    }
}

/// The budgets a gateway's tool calls take from: its rate limits, kept in a store.
#[derive(Clone)]
pub(super) struct Budgets {
    pub(super) limits: Arc<Current<RateLimits>>,
    pub(super) store: Arc<dyn RateStore>,
}

impl Budgets {
    /// Takes `request`, a tool call, from each applying rule's budget; the refusal when one
    /// is spent.
    pub(super) async fn refusal(&self, request: &McpRequest) -> Option<ErrorObject> {
        let limits = self.limits.get();
        let tool = request.target().unwrap_or_default();
        for rule in limits.rules.iter().filter(|rule| rule.applies_to(tool)) {
            let key = rule.key(request.ctx.principal(), tool);
            match self.store.take(&key, rule.rate()).await {
                Ok(None) => {}
                Ok(Some(wait)) => {
                    return Some(over_budget(format!("tool {tool:?}: {}", rule.describe()), wait));
                }
                Err(error) => {
                    tracing::warn!(rule = %rule.name, %error, "a rate limit could not be counted: the call is let through");
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_hold_what_the_rule_is_by_and_refusals_say_the_budget() {
        let limits = RateLimits::from_json(&json!([
            {"name": "each", "calls": 2, "perMs": 1000, "by": ["principal", "tool"]},
            {"name": "all", "tools": ["a__*"], "calls": 10, "perMs": 60000}
        ]))
        .unwrap();
        let ann = Principal::new(Some("https://issuer".into()), "ann", Vec::new());
        let [each, all] = &limits.rules[..] else { panic!("two rules") };
        assert_eq!(each.key(Some(&ann), "a__x"), "rate\u{1f}each\u{1f}https://issuer ann\u{1f}a__x");
        assert_eq!(each.key(None, "a__x"), "rate\u{1f}each\u{1f}anonymous\u{1f}a__x");
        assert_eq!(all.key(Some(&ann), "a__x"), "rate\u{1f}all");
        assert!(all.applies_to("a__x") && !all.applies_to("b__x") && each.applies_to("b__x"));
        assert_eq!(each.describe(), "rule \"each\" allows 2 requests per 1s for each caller and tool");
    }

    #[test]
    fn a_rule_that_does_not_read_is_refused_naming_where() {
        let zero = RateLimits::from_json(&json!([{"name": "r", "calls": 0, "perMs": 1}])).unwrap_err();
        assert_eq!(zero, "rateLimits[0]: \"calls\" and \"perMs\" must be at least 1");
        let twice = json!([{"name": "r", "calls": 1, "perMs": 1}, {"name": "r", "calls": 1, "perMs": 1}]);
        assert!(RateLimits::from_json(&twice).unwrap_err().contains("another rule is called \"r\""));
        let by = RateLimits::from_json(&json!([{"name": "r", "calls": 1, "perMs": 1, "by": ["ip"]}]));
        assert!(by.unwrap_err().starts_with("rateLimits[0]: by"));
    }
}
