//! The legacy (2025-11-25 and older) session: what `initialize` negotiated, and the requests
//! that read or change session state (`ping`, `logging/setLevel`, `resources/subscribe`).

use std::collections::BTreeSet;

use modelctx_protocol::jsonrpc::{ErrorObject, Notification};
use modelctx_protocol::model::ClientCapabilities;
use modelctx_protocol::types::{Implementation, LoggingLevel};
use modelctx_protocol::{JsonObject, Method, ProtocolVersion, v2025};

use super::params::{params_of, to_object};
use super::{Server, ServerEvent, covers};

/// One client's legacy session: on stdio the process, on HTTP the `Mcp-Session-Id`. A shared
/// session store keeps it as JSON.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LegacySession {
    /// The negotiated version.
    pub version: ProtocolVersion,
    /// What the client declared at `initialize`.
    pub capabilities: ClientCapabilities,
    /// The client software.
    pub client_info: Implementation,
    /// The level set by `logging/setLevel`; no log messages until one is set.
    pub log_level: Option<LoggingLevel>,
    /// URIs the client subscribed to with `resources/subscribe`.
    pub subscriptions: BTreeSet<String>,
    /// Whether `notifications/initialized` arrived.
    pub initialized: bool,
    /// The principal that opened the session ([`Principal::key`](super::Principal::key)),
    /// when an authenticator verified one: no other principal may use the session.
    pub owner: Option<String>,
}

impl LegacySession {
    /// Answers `initialize` at the version the era router negotiated, opening the session.
    pub fn initialize(
        server: &Server,
        version: ProtocolVersion,
        params: Option<JsonObject>,
    ) -> Result<(Self, JsonObject), ErrorObject> {
        let params = params_of::<v2025::Initialize>(params)?;
        let result = v2025::InitializeResult {
            protocol_version: version.to_string(),
            capabilities: server.capabilities().into(),
            server_info: server.info().clone(),
            instructions: server.inner.instructions.clone(),
            meta: None,
        };
        let session = Self {
            version,
            capabilities: params.capabilities.into(),
            client_info: params.client_info,
            log_level: None,
            subscriptions: BTreeSet::new(),
            initialized: false,
            owner: None,
        };
        Ok((session, to_object(&result)))
    }

    /// The methods [`LegacySession::handle`] serves: the ones that read or change the
    /// session. Asking first spares other requests (a `tools/call` with a large argument) a
    /// copy of their params.
    pub fn serves(method: &Method) -> bool {
        matches!(method, Method::Ping | Method::SetLevel | Method::Subscribe | Method::Unsubscribe)
    }

    /// Serves a request that reads or changes the session; `None` when `method` is not one.
    pub fn handle(
        &mut self,
        server: &Server,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Option<Result<JsonObject, ErrorObject>> {
        let empty = || Ok(to_object(&v2025::EmptyResult::default()));
        Some(match method {
            Method::Ping => empty(),
            Method::SetLevel => params_of::<v2025::SetLevel>(params)
                .map(|p| {
                    self.log_level = Some(p.level);
                })
                .and_then(|()| empty()),
            Method::Subscribe | Method::Unsubscribe if !server.offers_resources() => {
                Err(ErrorObject::method_not_found(method.as_str()))
            }
            Method::Subscribe => params_of::<v2025::Subscribe>(params).and_then(|p| {
                if self.subscriptions.contains(&p.uri) {
                    return empty();
                }
                let limits = &server.options().limits;
                if self.subscriptions.len() >= limits.max_subscriptions {
                    return Err(ErrorObject::internal(format!(
                        "server busy: this session already holds {} subscriptions; unsubscribe from one first",
                        limits.max_subscriptions
                    )));
                }
                let held: usize = self.subscriptions.iter().map(String::len).sum();
                if held + p.uri.len() > limits.max_subscription_bytes {
                    return Err(ErrorObject::internal(format!(
                        "server busy: this session's subscriptions would hold {} bytes of URIs, more than \
                         the {} allowed; unsubscribe from some first",
                        held + p.uri.len(),
                        limits.max_subscription_bytes
                    )));
                }
                self.subscriptions.insert(p.uri);
                empty()
            }),
            Method::Unsubscribe => params_of::<v2025::Unsubscribe>(params).and_then(|p| {
                self.subscriptions.remove(&p.uri);
                empty()
            }),
            _ => return None,
        })
    }

    /// The unsolicited notification that tells this session about `event`, if it should hear
    /// of it: list changes always, resource updates only for subscribed URIs (RES-12).
    pub fn notification_for(&self, event: &ServerEvent) -> Option<Notification> {
        let (method, params) = match event {
            ServerEvent::ToolsChanged => (Method::ToolListChanged, None),
            ServerEvent::PromptsChanged => (Method::PromptListChanged, None),
            ServerEvent::ResourcesChanged => (Method::ResourceListChanged, None),
            ServerEvent::ResourceUpdated(uri) => {
                if !self.subscriptions.iter().any(|s| covers(s, uri)) {
                    return None;
                }
                let mut params = JsonObject::new();
                params.insert("uri".into(), uri.clone().into());
                (Method::ResourceUpdated, Some(params))
            }
            // Tasks are a 2026-07-28 extension: a legacy session hears nothing of them.
            ServerEvent::TaskChanged(_) => return None,
            // So are events (experimental).
            #[cfg(feature = "experimental")]
            ServerEvent::EventsChanged => return None,
        };
        Some(Notification { method, params })
    }

    /// Takes a client notification that concerns the session; `true` when it changed the
    /// session.
    pub fn notification(&mut self, method: &Method) -> bool {
        let opens = *method == Method::Initialized && !self.initialized;
        if opens {
            self.initialized = true;
        }
        opens
    }
}
