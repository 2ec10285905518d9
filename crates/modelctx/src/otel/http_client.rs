//! The OTLP exporters' runtime, and their HTTP client: the crate's own `reqwest`, on that
//! runtime.
//!
//! The SDK exports from threads of its own, outside any tokio runtime, and the OTLP crate's
//! own client features would bring a second major version of `reqwest`. So requests run on a
//! one-thread runtime this client owns: it works before, inside and after the program's
//! runtime, and shutting down never waits on a runtime that is itself waiting.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError};
use tokio::runtime::Runtime;

/// The longest one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The one-thread runtime the OTLP exporters' requests run on, started when an exporter first
/// needs it.
#[derive(Default)]
pub(super) struct ExportRuntime {
    runtime: OnceLock<Arc<Runtime>>,
}

impl ExportRuntime {
    /// The runtime, started now if it was not.
    fn runtime(&self) -> Result<&Arc<Runtime>, super::OtelError> {
        if let Some(runtime) = self.runtime.get() {
            return Ok(runtime);
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("modelctx-otel")
            .enable_all()
            .build()?;
        Ok(self.runtime.get_or_init(|| Arc::new(runtime)))
    }

    /// An HTTP client whose requests run on this runtime.
    pub(super) fn http_client(&self) -> Result<OnOwnRuntime, super::OtelError> {
        let client = reqwest::Client::builder().timeout(EXPORT_TIMEOUT).build()?;
        Ok(OnOwnRuntime { client, runtime: Arc::clone(self.runtime()?) })
    }

    /// A handle to spawn on this runtime (the gRPC exporter's connection runs there).
    #[cfg(feature = "otel-grpc")]
    pub(super) fn handle(&self) -> Result<tokio::runtime::Handle, super::OtelError> {
        Ok(self.runtime()?.handle().clone())
    }
}

impl Drop for ExportRuntime {
    /// Stops the runtime without waiting, wherever the last owner drops it (dropping a runtime
    /// inside async code would panic).
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take().and_then(|runtime| Arc::try_unwrap(runtime).ok()) {
            runtime.shutdown_background();
        }
    }
}

/// An HTTP client whose requests run on the exporters' own runtime.
#[derive(Clone, Debug)]
pub(super) struct OnOwnRuntime {
    client: reqwest::Client,
    runtime: Arc<Runtime>,
}

#[async_trait::async_trait]
impl HttpClient for OnOwnRuntime {
    async fn send_bytes(&self, request: http::Request<Bytes>) -> Result<http::Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let sent = self.runtime.spawn(async move {
            let response = client.execute(reqwest::Request::try_from(request)?).await?;
            let mut answer = http::Response::new(Bytes::new());
            *answer.status_mut() = response.status();
            *answer.headers_mut() = response.headers().clone();
            *answer.body_mut() = response.bytes().await?;
            Ok::<_, HttpError>(answer)
        });
        sent.await?
    }
}
