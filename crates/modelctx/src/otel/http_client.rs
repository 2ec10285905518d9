//! The OTLP exporters' HTTP client: the crate's own `reqwest`, on a runtime of its own.
//!
//! The SDK exports from threads of its own, outside any tokio runtime, and the OTLP crate's
//! own client features would bring a second major version of `reqwest`. So requests run on a
//! one-thread runtime this client owns: it works before, inside and after the program's
//! runtime, and shutting down never waits on a runtime that is itself waiting.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError};

/// The longest one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// An HTTP client whose requests run on its own runtime.
#[derive(Clone, Debug)]
pub(super) struct OnOwnRuntime {
    client: reqwest::Client,
    runtime: Arc<tokio::runtime::Runtime>,
}

impl OnOwnRuntime {
    pub(super) fn new() -> Result<Self, super::OtelError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("modelctx-otel")
            .enable_all()
            .build()?;
        let client = reqwest::Client::builder().timeout(EXPORT_TIMEOUT).build()?;
        Ok(Self { client, runtime: Arc::new(runtime) })
    }
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
