//! The circuit breaker of one server: after `failures` tool calls in a row fail for want of
//! the server (not connected, unreachable, timed out), calls are refused at once for
//! `open_for`; then one call is let through as a trial, whose success closes the circuit and
//! whose failure opens it again. A new connection to the server (a restart, a reconnection)
//! closes it too: the server is back.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// When a server's circuit opens, and for how long ([`super::HostOptions::circuit_breaker`],
/// or an entry's `circuitBreaker`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CircuitPolicy {
    /// Failed calls in a row that open the circuit (at least 1). Default 5.
    pub failures: u32,
    /// How long an open circuit refuses calls before it lets one through. Default 30 s.
    pub open_for: Duration,
}

impl Default for CircuitPolicy {
    fn default() -> Self {
        Self { failures: 5, open_for: Duration::from_secs(30) }
    }
}

/// Why a call was refused without being sent: the circuit is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The failed calls in a row that opened it.
    pub failures: u32,
    /// What the last of them said.
    pub last_error: String,
    /// How long until a call is let through again.
    pub retry_in: Duration,
}

/// One server's circuit.
#[derive(Debug)]
pub(super) struct Circuit {
    policy: CircuitPolicy,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Failed calls in a row.
    failures: u32,
    last_error: String,
    /// While open: when a call may be tried again.
    open_until: Option<Instant>,
    /// A trial call is in flight (half open): others are refused until it ends.
    trial: bool,
}

/// A call let through, which reports how it ended ([`Admitted::ended`]); dropped before
/// that (the call was cancelled), it counts neither way.
#[derive(Debug)]
#[must_use]
pub(super) struct Admitted {
    circuit: Arc<Circuit>,
    trial: bool,
}

impl Admitted {
    /// The call ended: `Some(error)` when it failed for want of the server.
    pub(super) fn ended(mut self, failure: Option<String>) {
        // Reported: nothing is left for the drop to undo.
        self.trial = false;
        let mut state = self.circuit.state();
        match failure {
            None => *state = State::default(),
            Some(error) => {
                state.trial = false;
                state.failures = state.failures.saturating_add(1);
                state.last_error = error;
                if state.failures >= self.circuit.policy.failures {
                    state.open_until = Some(Instant::now() + self.circuit.policy.open_for);
                }
            }
        }
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if self.trial {
            self.circuit.state().trial = false;
        }
    }
}

impl Circuit {
    pub(super) fn new(policy: CircuitPolicy) -> Self {
        let policy = CircuitPolicy { failures: policy.failures.max(1), ..policy };
        Self { policy, state: Mutex::default() }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets a call through, or refuses it while the circuit is open (or its trial runs).
    pub(super) fn admit(self: &Arc<Self>) -> Result<Admitted, Refusal> {
        let mut state = self.state();
        let circuit = Arc::clone(self);
        let Some(until) = state.open_until else { return Ok(Admitted { circuit, trial: false }) };
        let now = Instant::now();
        if now < until || state.trial {
            return Err(Refusal {
                failures: state.failures,
                last_error: state.last_error.clone(),
                retry_in: until.saturating_duration_since(now),
            });
        }
        state.trial = true;
        Ok(Admitted { circuit, trial: true })
    }

    /// The server connected again: it is back, and calls go through.
    pub(super) fn close(&self) {
        *self.state() = State::default();
    }

    /// Whether calls are refused now.
    pub(super) fn is_open(&self) -> bool {
        self.state().open_until.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A circuit that opens after two failures, for `open_for`.
    fn circuit(open_for: Duration) -> Arc<Circuit> {
        Arc::new(Circuit::new(CircuitPolicy { failures: 2, open_for }))
    }

    /// Waits out an open circuit of [`SHORT`].
    async fn wait_out() {
        tokio::time::sleep(SHORT * 3).await;
    }

    const SHORT: Duration = Duration::from_millis(30);

    #[tokio::test]
    async fn failures_in_a_row_open_it_and_a_trial_closes_it() {
        let long = circuit(Duration::from_secs(600));
        long.admit().unwrap().ended(Some("gone".into()));
        long.admit().unwrap().ended(Some("still gone".into()));
        let refused = long.admit().unwrap_err();
        assert_eq!((refused.failures, refused.last_error.as_str()), (2, "still gone"));
        assert!(refused.retry_in > Duration::from_secs(590), "{:?}", refused.retry_in);

        let circuit = circuit(SHORT);
        circuit.admit().unwrap().ended(Some("gone".into()));
        circuit.admit().unwrap().ended(Some("gone".into()));
        assert!(circuit.is_open());
        wait_out().await;
        let trial = circuit.admit().unwrap();
        assert!(circuit.admit().is_err(), "one trial at a time");
        trial.ended(None);
        assert!(!circuit.is_open());
        assert!(circuit.admit().is_ok());
    }

    #[tokio::test]
    async fn a_failed_trial_opens_it_again_and_a_success_between_failures_resets_the_count() {
        let circuit = circuit(SHORT);
        circuit.admit().unwrap().ended(Some("gone".into()));
        circuit.admit().unwrap().ended(None);
        circuit.admit().unwrap().ended(Some("gone".into()));
        assert!(!circuit.is_open(), "one failure since the last success");
        circuit.admit().unwrap().ended(Some("gone".into()));
        assert!(circuit.is_open());
        wait_out().await;
        circuit.admit().unwrap().ended(Some("gone again".into()));
        assert_eq!(circuit.admit().unwrap_err().last_error, "gone again");
        circuit.close();
        assert!(circuit.admit().is_ok(), "a new connection closes it");
    }

    #[tokio::test]
    async fn a_trial_dropped_before_its_end_lets_the_next_call_try() {
        let circuit = circuit(SHORT);
        for _ in 0..2 {
            circuit.admit().unwrap().ended(Some("gone".into()));
        }
        wait_out().await;
        drop(circuit.admit().unwrap());
        assert!(circuit.admit().is_ok());
    }
}
