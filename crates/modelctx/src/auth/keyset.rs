//! The authorization server's signing keys as a resource server holds them: loaded once,
//! looked up without waiting, and loaded again — one load at a time, never while a lookup
//! waits on it — when a token names a key the set lacks (the server rotated), at most once per
//! refetch interval whether the last load worked or not. (The set used to be locked across a
//! load of up to 15 s, and a failed load was not remembered: every token naming an unknown key
//! started another.)

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey};
use reqwest::Url;

use super::AuthError;
use super::fetch::Fetcher;

/// How soon a load that failed while no set is held may be tried again.
const RETRY_WITHOUT_A_SET: Duration = Duration::from_secs(10);

/// Where the authorization server's signing keys are.
#[derive(Clone, Debug)]
pub enum Keys {
    /// A JWKS document on disk, read once.
    File(PathBuf),
    /// A JWKS URL (the authorization server's `jwks_uri`), kept for `refresh` and fetched
    /// again, at most once per refetch interval (default a minute), when a token names a key
    /// id it lacks.
    Url(String),
    /// A key set given in code.
    Set(JwkSet),
}

/// What is held of the set.
#[derive(Debug, Default)]
struct Held {
    set: Option<JwkSet>,
    /// When a load last ended, and why it failed if it did.
    last_load: Option<(Instant, Option<String>)>,
}

/// A key set, held and loaded again as tokens need; see the module documentation.
#[derive(Debug)]
pub(crate) struct KeySet {
    source: Keys,
    held: RwLock<Held>,
    /// Held by the one load under way.
    loading: tokio::sync::Mutex<()>,
    /// The least time between two loads of a held set (rotation).
    refetch_every: Duration,
}

impl KeySet {
    /// The keys at `source`, loaded on first use.
    pub(crate) fn new(source: Keys) -> Self {
        Self {
            source,
            held: RwLock::default(),
            loading: tokio::sync::Mutex::new(()),
            refetch_every: Duration::from_secs(60),
        }
    }

    /// Sets the least time between two loads of a held set.
    pub(crate) fn set_refetch_every(&mut self, every: Duration) {
        self.refetch_every = every;
    }

    /// The key that verifies a token of `kid` and `alg`: the one with that id, or when the
    /// token names none, the only key of the algorithm's family; loaded (again) first when the
    /// set has no such key and a load is due. Why not, in words.
    pub(crate) async fn key(
        &self,
        fetcher: &Fetcher,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<DecodingKey, String> {
        if let Some(key) = self.pick(kid, alg) {
            return Ok(key);
        }
        if self.load_due() {
            let _loading = self.loading.lock().await;
            // A load that ended while this one waited may have brought the key.
            if let Some(key) = self.pick(kid, alg) {
                return Ok(key);
            }
            if self.load_due() {
                let loaded = self.load(fetcher).await;
                let mut held = self.held.write().unwrap_or_else(PoisonError::into_inner);
                match loaded {
                    Ok(set) => {
                        held.set = Some(set);
                        held.last_load = Some((Instant::now(), None));
                    }
                    Err(e) => held.last_load = Some((Instant::now(), Some(e.to_string()))),
                }
            }
        }
        if let Some(key) = self.pick(kid, alg) {
            return Ok(key);
        }
        let held = self.held.read().unwrap_or_else(PoisonError::into_inner);
        Err(match (&held.set, &held.last_load, kid) {
            (None, Some((_, Some(failure))), _) => failure.clone(),
            (_, _, Some(kid)) => format!("no key {kid} for {alg:?} in the authorization server's key set"),
            (_, _, None) => format!("the token names no key, and the key set has no single {alg:?} key"),
        })
    }

    /// The held set's key for `kid` and `alg`.
    fn pick(&self, kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
        pick(self.held.read().unwrap_or_else(PoisonError::into_inner).set.as_ref(), kid, alg)
    }

    /// Whether a load may start now: none yet; or, for a set held at a URL, the last one ended
    /// a refetch interval ago; or, with no set held, the failed one ended a while ago.
    fn load_due(&self) -> bool {
        let held = self.held.read().unwrap_or_else(PoisonError::into_inner);
        let Some((at, _)) = &held.last_load else { return true };
        match (&held.set, &self.source) {
            (None, _) => at.elapsed() >= RETRY_WITHOUT_A_SET.min(self.refetch_every),
            (Some(_), Keys::Url(_)) => at.elapsed() >= self.refetch_every,
            (Some(_), _) => false,
        }
    }

    async fn load(&self, fetcher: &Fetcher) -> Result<JwkSet, AuthError> {
        match &self.source {
            Keys::Set(set) => Ok(set.clone()),
            Keys::File(path) => {
                let text = tokio::fs::read(path).await.map_err(|e| {
                    AuthError::Config(format!("cannot read the key set {}: {e}", path.display()))
                })?;
                serde_json::from_slice(&text)
                    .map_err(|e| AuthError::Config(format!("{} is not a JWKS document: {e}", path.display())))
            }
            Keys::Url(url) => {
                let parsed =
                    Url::parse(url).map_err(|e| AuthError::Config(format!("the key set URL {url}: {e}")))?;
                fetcher
                    .get_document::<JwkSet>(&parsed, "key set")
                    .await?
                    .ok_or_else(|| AuthError::Discovery(format!("no key set at {url}")))
            }
        }
    }
}

/// The key of `set` for a token of `kid` and `alg`: of the algorithm's family (an RSA or EC
/// key never verifies an HMAC signature), of that algorithm when the key names one.
fn pick(set: Option<&JwkSet>, kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
    let usable = |jwk: &&Jwk| {
        jwk.common.key_algorithm.is_none_or(|a| a == jsonwebtoken::jwk::KeyAlgorithm::from(alg))
            && DecodingKey::from_jwk(jwk).is_ok_and(|key| key.family() == alg.family())
    };
    let found: Vec<&Jwk> = set?
        .keys
        .iter()
        .filter(|k| kid.is_none_or(|kid| k.common.key_id.as_deref() == Some(kid)))
        .filter(usable)
        .collect();
    match found.as_slice() {
        [only] => DecodingKey::from_jwk(only).ok(),
        _ => None,
    }
}
