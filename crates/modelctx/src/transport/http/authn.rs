//! Authorization at the HTTP edge. An [`Authenticator`] verifies the access token of every
//! request to the MCP endpoint into a [`Principal`], or refuses it with a challenge; it also
//! publishes the endpoint's protected resource metadata (RFC 9728) and says how to refuse a
//! caller who lacks the scopes a tool, prompt or resource requires. `modelctx::auth::
//! ResourceServer` (feature `auth`) is one: JWTs against a key set, or introspection.
//!
//! The checks happen before a request is admitted, so that the refusal is an HTTP status
//! (`401`, `403`) with its `WWW-Authenticate` challenge, whatever kind of response the request
//! would have had.

use std::fmt;

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{HeaderMap, HeaderValue, Method, Response, Uri, header};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

use super::McpBody;
use crate::server::Principal;

/// The parts of an HTTP request an authenticator reads.
#[derive(Clone, Copy, Debug)]
pub struct RequestHead<'a> {
    /// The method.
    pub method: &'a Method,
    /// The target, as the client sent it.
    pub uri: &'a Uri,
    /// The headers (`Authorization`, `DPoP`, `Host`).
    pub headers: &'a HeaderMap,
}

/// A refusal: the status, the `WWW-Authenticate` challenge, and the OAuth error of its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// `400`, `401` or `403`.
    pub status: u16,
    /// The `WWW-Authenticate` header value.
    pub challenge: String,
    /// The OAuth error code (`invalid_token`, `insufficient_scope`, `invalid_request`).
    pub error: String,
    /// What a person reads.
    pub description: String,
    /// A `DPoP-Nonce` to send with it (RFC 9449 §9), when the authenticator wants one.
    pub dpop_nonce: Option<String>,
}

impl Denial {
    /// The HTTP response of the refusal: its status, challenge and a JSON body
    /// `{"error", "error_description"}` (RFC 6750 §3).
    pub fn response(&self) -> Response<McpBody> {
        let body = json!({"error": self.error, "error_description": self.description});
        let mut response = Response::builder()
            .status(self.status)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())).boxed_unsync())
            .expect("a valid response");
        if let Ok(challenge) = HeaderValue::try_from(self.challenge.as_str()) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
        }
        if let Some(nonce) = self.dpop_nonce.as_deref().and_then(|n| HeaderValue::try_from(n).ok()) {
            response.headers_mut().insert("dpop-nonce", nonce);
        }
        response
    }
}

/// Verifies callers of the MCP endpoint.
pub trait Authenticator: Send + Sync + fmt::Debug {
    /// The URL paths the protected resource metadata is served at
    /// (`/.well-known/oauth-protected-resource/mcp`).
    fn metadata_paths(&self) -> Vec<String>;

    /// The protected resource metadata document.
    fn metadata(&self) -> Value;

    /// The caller of a request, from its credentials; or the refusal (`401` with a
    /// challenge naming the metadata, `400` for a malformed request).
    fn authenticate<'a>(&'a self, request: RequestHead<'a>) -> BoxFuture<'a, Result<Principal, Denial>>;

    /// The refusal of a caller who lacks `needed` (`403 insufficient_scope`).
    fn insufficient_scope(&self, needed: &[String]) -> Denial;
}

/// The metadata document as a response.
pub(super) fn metadata_response(authenticator: &dyn Authenticator) -> Response<McpBody> {
    Response::builder()
        .status(200)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "max-age=300")
        .body(Full::new(Bytes::from(authenticator.metadata().to_string())).boxed_unsync())
        .expect("a valid response")
}
