//! The sealed `requestState` of multi-round-trip requests (MRTR-08, MRTR-09).
//!
//! The state carries the answers of earlier rounds, so any server instance sharing the key can
//! continue the request. It is `payload.kid.tag` in base64url: the payload names the method, a
//! digest of the request's own params (so state cannot be replayed on another request), an
//! expiry, and the answers; the tag is HMAC-SHA256 over the key id and the payload. A state
//! that fails any check is refused with `-32602`.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::{JsonObject, Method};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Principal;

type HmacSha256 = Hmac<Sha256>;

/// A key that seals `requestState`: an id (so keys can rotate) and at least 32 secret bytes.
#[derive(Clone)]
pub struct StateKey {
    id: String,
    secret: Vec<u8>,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// Why a [`StateKey`] was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateKeyError {
    /// The secret is shorter than 32 bytes.
    TooShort,
    /// The id is empty or contains `.`.
    BadId,
    /// The system random source failed.
    NoRandomness(String),
}

impl std::fmt::Display for StateKeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooShort => f.write_str("a requestState key needs at least 32 secret bytes"),
            Self::BadId => f.write_str("a requestState key id is non-empty and has no '.'"),
            Self::NoRandomness(e) => write!(f, "cannot generate a requestState key: {e}"),
        }
    }
}

impl std::error::Error for StateKeyError {}

impl StateKey {
    /// A key with this id and secret. Every instance behind one load balancer must share it.
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, StateKeyError> {
        let (id, secret) = (id.into(), secret.into());
        if id.is_empty() || id.contains('.') {
            return Err(StateKeyError::BadId);
        }
        if secret.len() < 32 {
            return Err(StateKeyError::TooShort);
        }
        Ok(Self { id, secret })
    }

    /// A fresh random key, for a single server instance.
    pub fn random() -> Result<Self, StateKeyError> {
        let mut secret = vec![0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| StateKeyError::NoRandomness(e.to_string()))?;
        let mut id = [0u8; 6];
        getrandom::fill(&mut id).map_err(|e| StateKeyError::NoRandomness(e.to_string()))?;
        Self::new(URL_SAFE_NO_PAD.encode(id), secret)
    }

    fn tag(&self, payload: &str) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.secret).expect("HMAC takes keys of any length");
        mac.update(self.id.as_bytes());
        mac.update(b".");
        mac.update(payload.as_bytes());
        mac
    }
}

/// The keys of a server: the current one seals, every one unseals (for rotation). Clones
/// share their keys: a rotation through one is seen by all (and by the server holding one).
#[derive(Clone, Debug)]
pub struct StateKeys {
    keys: Arc<RwLock<KeyRing>>,
    lifetime: Duration,
}

#[derive(Debug)]
struct KeyRing {
    current: StateKey,
    previous: Vec<StateKey>,
}

impl StateKeys {
    /// Seals with `current`; also accepts states sealed with `previous` keys. States live for
    /// `lifetime` (ten minutes is a good default).
    pub fn new(current: StateKey, previous: Vec<StateKey>, lifetime: Duration) -> Self {
        Self { keys: Arc::new(RwLock::new(KeyRing { current, previous })), lifetime }
    }

    /// How long a sealed state lives.
    pub fn lifetime(&self) -> Duration {
        self.lifetime
    }

    /// Seals with `next` from now on; the current key still unseals, as do the `keep - 1`
    /// keys before it. Rotating to the current key changes nothing.
    pub fn rotate(&self, next: StateKey, keep: usize) {
        let mut ring = self.keys.write().unwrap_or_else(PoisonError::into_inner);
        if ring.current.id == next.id {
            return;
        }
        let retired = std::mem::replace(&mut ring.current, next);
        ring.previous.insert(0, retired);
        ring.previous.truncate(keep);
    }

    /// The id of the key that seals now.
    pub fn current_id(&self) -> String {
        self.keys.read().unwrap_or_else(PoisonError::into_inner).current.id.clone()
    }
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// The method.
    m: String,
    /// Digest of the request's own params.
    d: String,
    /// Expiry, milliseconds since the Unix epoch.
    e: u64,
    /// Answers of earlier rounds, by input request key.
    a: JsonObject,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// JSON with object keys sorted at every level, so equal params digest equally whatever the
/// order the client wrote them in.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The digest a request state is bound to: the request's params without the members that
/// change between rounds (`_meta`, `inputResponses`, `requestState`), and the caller when an
/// authenticator verified one, so that another principal cannot replay the state.
pub(crate) fn state_digest(params: Option<&JsonObject>, principal: Option<&Principal>) -> String {
    let mut own = params.cloned().unwrap_or_default();
    for member in ["_meta", "inputResponses", "requestState"] {
        own.remove(member);
    }
    let mut text = String::new();
    canonical(&Value::Object(own), &mut text);
    if let Some(principal) = principal {
        text.push('\u{0}');
        text.push_str(&principal.key());
    }
    URL_SAFE_NO_PAD.encode(Sha256::digest(text.as_bytes()))
}

fn refused(why: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("requestState {why}; start the request again without it"))
}

impl StateKeys {
    /// Seals the answers so far for a request of `method` with this params digest.
    pub(crate) fn seal(&self, method: &Method, digest: String, answers: JsonObject) -> String {
        let expiry = now_ms().saturating_add(self.lifetime.as_millis() as u64);
        let payload = Payload { m: method.as_str().to_owned(), d: digest, e: expiry, a: answers };
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&payload).expect("a payload serialises"));
        let ring = self.keys.read().unwrap_or_else(PoisonError::into_inner);
        let tag = URL_SAFE_NO_PAD.encode(ring.current.tag(&payload).finalize().into_bytes());
        format!("{payload}.{}.{tag}", ring.current.id)
    }

    /// Verifies and opens a state: the tag, the key id, the expiry, the method and the params.
    pub(crate) fn open(&self, state: &str, method: &Method, digest: &str) -> Result<JsonObject, ErrorObject> {
        let mut parts = state.splitn(3, '.');
        let (Some(payload), Some(key_id), Some(tag)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(refused("is malformed"));
        };
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| refused("is malformed"))?;
        {
            let ring = self.keys.read().unwrap_or_else(PoisonError::into_inner);
            let key = std::iter::once(&ring.current)
                .chain(&ring.previous)
                .find(|key| key.id == key_id)
                .ok_or_else(|| refused("was sealed with an unknown key"))?;
            key.tag(payload).verify_slice(&tag).map_err(|_| refused("failed verification"))?;
        }
        let payload: Payload = URL_SAFE_NO_PAD
            .decode(payload)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or_else(|| refused("is malformed"))?;
        if payload.e < now_ms() {
            return Err(refused("has expired"));
        }
        if payload.m != method.as_str() || payload.d != digest {
            return Err(refused("belongs to another request"));
        }
        Ok(payload.a)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn test_keys(lifetime: Duration) -> StateKeys {
        StateKeys::new(StateKey::new("k1", [7u8; 32]).unwrap(), vec![], lifetime)
    }

    fn answers() -> JsonObject {
        json!({"elicit-0": {"action": "accept"}}).as_object().unwrap().clone()
    }

    #[test]
    fn mrtr_08_state_round_trips_and_refuses_tampering() {
        let keys = test_keys(Duration::from_secs(60));
        let state = keys.seal(&Method::CallTool, "d".into(), answers());
        assert_eq!(keys.open(&state, &Method::CallTool, "d").unwrap(), answers());
        let mut tampered = state.clone().into_bytes();
        tampered[3] ^= 1;
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(keys.open(&tampered, &Method::CallTool, "d").unwrap_err().message.contains("requestState"));
        let other_key =
            StateKeys::new(StateKey::new("k1", [8u8; 32]).unwrap(), vec![], Duration::from_secs(60));
        assert!(
            other_key
                .open(&state, &Method::CallTool, "d")
                .unwrap_err()
                .message
                .contains("failed verification")
        );
    }

    #[test]
    fn mrtr_09_state_is_bound_to_method_params_and_expiry() {
        let keys = test_keys(Duration::from_secs(60));
        let state = keys.seal(&Method::CallTool, "d".into(), answers());
        assert!(keys.open(&state, &Method::GetPrompt, "d").unwrap_err().message.contains("another request"));
        assert!(keys.open(&state, &Method::CallTool, "e").unwrap_err().message.contains("another request"));
        let expired = test_keys(Duration::ZERO).seal(&Method::CallTool, "d".into(), answers());
        std::thread::sleep(Duration::from_millis(5));
        assert!(keys.open(&expired, &Method::CallTool, "d").unwrap_err().message.contains("expired"));
    }

    #[test]
    fn rotated_keys_still_open_old_states() {
        let old = StateKey::new("old", [1u8; 32]).unwrap();
        let sealed = StateKeys::new(old.clone(), vec![], Duration::from_secs(60)).seal(
            &Method::from("m"),
            "d".into(),
            answers(),
        );
        let rotated =
            StateKeys::new(StateKey::new("new", [2u8; 32]).unwrap(), vec![old], Duration::from_secs(60));
        assert!(rotated.open(&sealed, &Method::from("m"), "d").is_ok());
    }

    #[test]
    fn a_rotation_through_a_clone_seals_with_the_next_key_and_keeps_as_many_as_asked() {
        let keys = StateKeys::new(StateKey::new("k1", [1u8; 32]).unwrap(), vec![], Duration::from_secs(60));
        let first = keys.seal(&Method::from("m"), "d".into(), answers());
        let shared = keys.clone();
        shared.rotate(StateKey::new("k2", [2u8; 32]).unwrap(), 1);
        assert_eq!(keys.current_id(), "k2", "clones share their keys");
        assert!(keys.seal(&Method::from("m"), "d".into(), answers()).contains(".k2."));
        assert!(keys.open(&first, &Method::from("m"), "d").is_ok(), "the retired key still opens");
        shared.rotate(StateKey::new("k2", [9u8; 32]).unwrap(), 1);
        assert!(
            keys.open(&keys.seal(&Method::from("m"), "d".into(), answers()), &Method::from("m"), "d").is_ok(),
            "the same id: no change"
        );
        shared.rotate(StateKey::new("k3", [3u8; 32]).unwrap(), 1);
        assert!(keys.open(&first, &Method::from("m"), "d").is_err(), "only one retired key is kept");
    }

    #[test]
    fn the_digest_ignores_round_members_and_key_order_and_binds_the_principal() {
        let a = json!({"name": "t", "arguments": {"x": 1, "y": [1, {"b": 1, "a": 2}]}, "_meta": {"k": 1}});
        let b = json!({"arguments": {"y": [1, {"a": 2, "b": 1}], "x": 1}, "name": "t", "requestState": "s",
                       "inputResponses": {}});
        assert_eq!(state_digest(a.as_object(), None), state_digest(b.as_object(), None));
        let c = json!({"name": "t", "arguments": {"x": 2}});
        assert_ne!(state_digest(a.as_object(), None), state_digest(c.as_object(), None));
        let alice = Principal::new(Some("https://as".into()), "alice", vec![]);
        let bob = Principal::new(Some("https://as".into()), "bob", vec![]);
        assert_ne!(state_digest(a.as_object(), Some(&alice)), state_digest(a.as_object(), Some(&bob)));
        assert_ne!(state_digest(a.as_object(), Some(&alice)), state_digest(a.as_object(), None));
    }

    #[test]
    fn keys_must_be_long_and_named() {
        assert_eq!(StateKey::new("k", [0u8; 31]).unwrap_err(), StateKeyError::TooShort);
        assert_eq!(StateKey::new("a.b", [0u8; 32]).unwrap_err(), StateKeyError::BadId);
        assert!(StateKey::random().is_ok());
    }
}
