//! How the client answers what a server asks of it — elicitation, sampling, roots — in both
//! eras: live server-to-client requests (2025-11-25) and the input requests of a
//! multi-round-trip result (2026-07-28). The capabilities the client declares follow from
//! which handlers are set.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::ElicitRequest;
use modelctx_protocol::types::Root;
use modelctx_protocol::{Era, JsonObject, v2025, v2026};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

type Elicit = Arc<dyn Fn(ElicitRequest) -> BoxFuture<'static, v2026::ElicitResult> + Send + Sync>;
type Sample = Arc<
    dyn Fn(
            v2026::CreateMessageRequestParams,
        ) -> BoxFuture<'static, Result<v2026::CreateMessageResult, ErrorObject>>
        + Send
        + Sync,
>;
type Roots = Arc<dyn Fn() -> BoxFuture<'static, Vec<Root>> + Send + Sync>;

/// The client's answers to server requests; each one set declares its capability.
#[derive(Clone, Default)]
pub struct ClientHandlers {
    elicit: Option<Elicit>,
    sample: Option<Sample>,
    roots: Option<Roots>,
}

impl fmt::Debug for ClientHandlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientHandlers")
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl ClientHandlers {
    /// Answers `elicitation/create` (form and URL mode) — usually by asking the user.
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = v2026::ElicitResult> + Send + 'static,
    {
        self.elicit = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// Answers `sampling/createMessage` with the host's model.
    pub fn on_sample<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(v2026::CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<v2026::CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.sample = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// Answers `roots/list`.
    pub fn on_roots<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.roots = Some(Arc::new(move || Box::pin(handler())));
        self
    }

    /// The client capabilities these handlers make true.
    pub(crate) fn capabilities(&self) -> Value {
        let mut capabilities = JsonObject::new();
        if self.elicit.is_some() {
            capabilities.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        }
        if self.sample.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            capabilities.insert("roots".into(), json!({}));
        }
        Value::Object(capabilities)
    }

    /// Answers one server request of `era`; `ping` always, the rest when a handler is set.
    pub(crate) async fn answer(
        &self,
        era: Era,
        method: &str,
        params: Option<JsonObject>,
    ) -> Result<JsonObject, ErrorObject> {
        let params = Value::Object(params.unwrap_or_default());
        match method {
            "ping" => Ok(JsonObject::new()),
            "elicitation/create" if self.elicit.is_some() => {
                let request: ElicitRequest = match era {
                    Era::Modern => typed::<v2026::ElicitRequestParams>(params)?.into(),
                    Era::Legacy => typed::<v2025::ElicitRequestParams>(params)?.into(),
                };
                let elicit = self.elicit.as_ref().map(Arc::clone).ok_or_else(|| missing(method))?;
                object(&elicit(request).await)
            }
            "sampling/createMessage" if self.sample.is_some() => {
                let request = typed::<v2026::CreateMessageRequestParams>(params)?;
                let sample = self.sample.as_ref().map(Arc::clone).ok_or_else(|| missing(method))?;
                object(&sample(request).await?)
            }
            "roots/list" if self.roots.is_some() => {
                let roots = self.roots.as_ref().map(Arc::clone).ok_or_else(|| missing(method))?;
                object(&v2026::ListRootsResult { roots: roots().await })
            }
            other => Err(missing(other)),
        }
    }
}

fn missing(method: &str) -> ErrorObject {
    ErrorObject::method_not_found(method)
}

fn typed<T: DeserializeOwned>(params: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(params).map_err(|e| ErrorObject::invalid_params(e.to_string()))
}

fn object(value: &impl Serialize) -> Result<JsonObject, ErrorObject> {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(ErrorObject::internal(format!("a handler answered {other}, not an object"))),
        Err(e) => Err(ErrorObject::internal(e)),
    }
}
