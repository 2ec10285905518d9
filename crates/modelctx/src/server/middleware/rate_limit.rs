//! A rate limit per tool, prompt, resource or server, optionally per caller (TOOL-14,
//! COMP-04): requests over the budget are refused at once with the time to wait, never
//! queued.

use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, RateLimiter};
use modelctx_protocol::jsonrpc::ErrorObject;
use serde_json::json;
use tower::Layer;

use super::McpRequest;
use super::guard::{Guard, Guarded};
use crate::store::Rate;

/// Who a request counts against, for a per-caller limit.
type CallerKey = Arc<dyn Fn(&McpRequest) -> String + Send + Sync>;

/// A layer that lets at most `calls` requests through in any `per`, refusing the rest with
/// `-32603` and the milliseconds to wait (`data.retryAfterMs`). Each place it is applied
/// (the server, or one definition) keeps its own budget.
///
/// The budget is a generic cell rate (GCRA, the `governor` crate): a burst of `calls` at
/// once, then one more every `per / calls`.
#[derive(Clone)]
pub struct RateLimit {
    rate: Rate,
    caller: Option<CallerKey>,
    max_callers: usize,
}

impl RateLimit {
    /// At most `calls` requests (at least one) in any `per`, for all callers together.
    pub fn new(calls: u32, per: Duration) -> Self {
        Self { rate: Rate::new(calls, per), caller: None, max_callers: 10_000 }
    }

    /// Gives each caller a budget of its own, keyed by `key` — the client's name, a session,
    /// or the authorised principal.
    pub fn per_caller(mut self, key: impl Fn(&McpRequest) -> String + Send + Sync + 'static) -> Self {
        self.caller = Some(Arc::new(key));
        self
    }

    /// How many callers a per-caller limit tracks at once (default 10,000). Callers whose
    /// budget is full again are forgotten first; past the bound, requests are refused as
    /// busy rather than tracked.
    pub fn max_callers(mut self, max: usize) -> Self {
        self.max_callers = max;
        self
    }
}

/// The budgets of one place a [`RateLimit`] is applied.
enum Budgets {
    Shared(DefaultDirectRateLimiter),
    PerCaller { limiter: DefaultKeyedRateLimiter<String>, key: CallerKey, max: usize },
}

impl<S> Layer<S> for RateLimit {
    type Service = Guarded<S, RateBudget>;

    fn layer(&self, inner: S) -> Self::Service {
        let budgets = match &self.caller {
            None => Budgets::Shared(RateLimiter::direct(self.rate.quota())),
            Some(key) => Budgets::PerCaller {
                limiter: RateLimiter::keyed(self.rate.quota()),
                key: key.clone(),
                max: self.max_callers,
            },
        };
        Guarded::new(inner, RateBudget { budgets: Arc::new(budgets), rate: self.rate })
    }
}

/// The budget a [`RateLimit`] keeps where it is applied: the [`Guard`] of its service.
#[derive(Clone)]
pub struct RateBudget {
    budgets: Arc<Budgets>,
    rate: Rate,
}

impl Guard for RateBudget {
    type Pending = ();

    /// Refuses `request` when it is over its budget.
    fn before(&self, request: &McpRequest) -> Result<(), ErrorObject> {
        let (verdict, scope) = match &*self.budgets {
            Budgets::Shared(limiter) => (limiter.check(), ""),
            Budgets::PerCaller { limiter, key, max } => {
                if limiter.len() >= *max {
                    limiter.retain_recent();
                    if limiter.len() >= *max {
                        return Err(ErrorObject::internal(format!(
                            "server busy: the rate limit tracks {max} callers already; try again later"
                        )));
                    }
                }
                (limiter.check_key(&key(request)), " per caller")
            }
        };
        let Err(not_until) = verdict else { return Ok(()) };
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        let what = request.target().unwrap_or(request.method.as_str());
        Err(over_budget(format!("{what} allows {}{scope}", describe(self.rate)), wait))
    }
}

/// How `rate` reads in a refusal: `N requests per D`.
pub(crate) fn describe(rate: Rate) -> String {
    format!("{} requests per {:?}", rate.calls, rate.per)
}

/// The refusal of a request over its budget: `-32603`, saying `what` the budget is and when to
/// try again (also as `data.retryAfterMs`).
pub(crate) fn over_budget(what: String, wait: Duration) -> ErrorObject {
    let retry_after_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    ErrorObject::internal(format!("rate limit: {what}; retry in {:.1}s", wait.as_secs_f64()))
        .with_data(json!({ "retryAfterMs": retry_after_ms }))
}
