//! The legacy (2025-11-25 and older) session: what `initialize` negotiated, and the requests
//! that read or change session state (`ping`, `logging/setLevel`, `resources/subscribe`).

use std::collections::BTreeSet;
use std::sync::Arc;

use modelctx_protocol::era::DeclaredClient;
use modelctx_protocol::jsonrpc::{ErrorObject, Notification};
use modelctx_protocol::model::ClientCapabilities;
use modelctx_protocol::types::{Implementation, LoggingLevel};
use modelctx_protocol::{JsonObject, Method, ProtocolVersion, v2025};

use super::params::{params_of, to_object};
use super::{Server, ServerEvent, covers};

/// One client's legacy session: on stdio the process, on HTTP the `Mcp-Session-Id`. A shared
/// session store keeps it as JSON, with the client's `capabilities` and `client_info` as
/// members of their own.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(from = "StoredSession", into = "StoredSession")]
pub struct LegacySession {
    /// The negotiated version.
    pub version: ProtocolVersion,
    /// What the client declared at `initialize`: its capabilities and its software (`info`).
    /// Each of the session's requests shares it (`RequestContext::client_info`).
    pub client: Arc<DeclaredClient>,
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
            client: Arc::new(DeclaredClient {
                capabilities: params.capabilities.into(),
                info: Some(params.client_info),
            }),
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

/// A [`LegacySession`] as a store keeps it: the shape sessions have always been stored in, so
/// that instances of another release read the same sessions.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct StoredSession {
    version: ProtocolVersion,
    capabilities: ClientCapabilities,
    client_info: Implementation,
    log_level: Option<LoggingLevel>,
    subscriptions: BTreeSet<String>,
    initialized: bool,
    owner: Option<String>,
}

impl From<StoredSession> for LegacySession {
    fn from(stored: StoredSession) -> Self {
        let StoredSession {
            version,
            capabilities,
            client_info,
            log_level,
            subscriptions,
            initialized,
            owner,
        } = stored;
        let client = Arc::new(DeclaredClient { capabilities, info: Some(client_info) });
        Self { version, client, log_level, subscriptions, initialized, owner }
    }
}

impl From<LegacySession> for StoredSession {
    fn from(session: LegacySession) -> Self {
        let LegacySession { version, client, log_level, subscriptions, initialized, owner } = session;
        let DeclaredClient { capabilities, info } = Arc::unwrap_or_clone(client);
        // A session's client always said who it is (`initialize` requires `clientInfo`).
        Self {
            version,
            capabilities,
            client_info: info.unwrap_or_default(),
            log_level,
            subscriptions,
            initialized,
            owner,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_session_is_stored_in_the_shape_sessions_always_had() {
        let stored = json!({
            "version": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}},
            "client_info": {"name": "c", "version": "1"},
            "log_level": "info",
            "subscriptions": ["file:///a"],
            "initialized": true,
            "owner": null
        });
        let session: LegacySession = serde_json::from_value(stored.clone()).expect("a stored session");
        assert_eq!(session.client.info.as_ref().map(|info| info.name.as_str()), Some("c"));
        assert!(session.client.capabilities.roots.is_some());
        let written = serde_json::to_value(&session).expect("stored");
        let members: Vec<&str> = written.as_object().expect("an object").keys().map(String::as_str).collect();
        let always =
            ["capabilities", "client_info", "initialized", "log_level", "owner", "subscriptions", "version"];
        assert_eq!(members, always);
        assert_eq!(written["client_info"], stored["client_info"]);
        assert_eq!(written["capabilities"]["roots"], stored["capabilities"]["roots"]);
        assert_eq!(serde_json::from_value::<LegacySession>(written).expect("read back"), session);
    }
}
