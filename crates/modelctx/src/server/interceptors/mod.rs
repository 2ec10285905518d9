//! Interceptors (experimental, SEP-2624; `modelctx_protocol::interceptors` has the wire): a
//! server hosts validators and mutators ([`InterceptorDef`], served by
//! [`super::ServerBuilder::interceptors`] as `interceptors/list` and `interceptor/invoke`), and
//! an invoker runs a [`Chain`] of them — local or on other servers — around the requests and
//! responses it serves ([`InterceptorLayer`]; the gateway is its natural home). The chain
//! follows the draft's execution model: receiving, validate then mutate; sending, mutate then
//! validate; mutators one after another by priority, all or none applied; validators at once,
//! only an `error` blocking; audit never blocks; a failure blocks unless `failOpen`.

mod chain;
mod hosting;
mod layer;

pub use chain::{Chain, ChainEntry, ChainOutcome, ChainStatus, Direction, InterceptorHost, Overrides};
pub(crate) use hosting::Hosting;
pub use hosting::{InterceptorDef, Invocation};
pub use layer::InterceptorLayer;
