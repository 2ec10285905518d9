//! The gateway's one server layer of its own: each request let in by the [`Policy`] (listings
//! filtered per caller, anything else about a definition refused when not allowed) and each tool
//! call by the rate limits' [`Budgets`] (a call a policy refuses takes nothing); a refused tool
//! call is told to the observers.

use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use tower::{Layer, Service, ServiceExt as _};

use super::Current;
use super::limits::Budgets;
use super::observe::{CallObserver, tell_refused};
use super::policy::Policy;
use crate::host::Host;
use crate::server::Answer;
use crate::server::middleware::{McpRequest, McpService};

/// See the [module docs](self).
#[derive(Clone)]
pub(super) struct AdmissionLayer {
    pub(super) policy: Arc<Current<Policy>>,
    pub(super) budgets: Budgets,
    pub(super) host: Arc<Host>,
    pub(super) observers: Arc<[Arc<dyn CallObserver>]>,
}

impl AdmissionLayer {
    /// `request` answered by `inner`, once let in.
    async fn admit(self, request: McpRequest, inner: McpService) -> Result<Answer, ErrorObject> {
        let policy = self.policy.get();
        if !policy.is_empty() {
            if Policy::filters(&request.method) {
                let (method, principal) = (request.method.clone(), request.ctx.principal().cloned());
                let listed = inner.oneshot(request).await?.into_object();
                return Ok(Answer::from(policy.filter(&method, principal.as_ref(), listed)));
            }
            if let Some(refusal) = policy.refusal(&request, &self.host) {
                if request.method == Method::CallTool {
                    tell_refused(&self.observers, &self.host, &request, &refusal);
                }
                return Err(ErrorObject::invalid_params(refusal));
            }
        }
        if request.method == Method::CallTool
            && let Some(refusal) = self.budgets.refusal(&request).await
        {
            tell_refused(&self.observers, &self.host, &request, &refusal.message);
            return Err(refusal);
        }
        inner.oneshot(request).await
    }
}

impl Layer<McpService> for AdmissionLayer {
    type Service = AdmissionService;

    fn layer(&self, inner: McpService) -> AdmissionService {
        AdmissionService { layer: self.clone(), inner }
    }
}

/// [`AdmissionLayer`]'s service.
#[derive(Clone)]
pub(super) struct AdmissionService {
    layer: AdmissionLayer,
    inner: McpService,
}

impl Service<McpRequest> for AdmissionService {
    type Response = Answer;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, Result<Answer, ErrorObject>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ErrorObject>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        Box::pin(self.layer.clone().admit(request, self.inner.clone()))
    }
}
