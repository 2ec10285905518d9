//! The keys that seal `requestState`, shared by every instance through Redis and rotated on a
//! schedule: the key of each period is made by the first instance that needs it (set if
//! absent), and the one before it still opens states sealed just before the change.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use modelctx::server::{StateKey, StateKeys};
use modelctx::store::StoreError;

use crate::Redis;
use crate::sessions::now_ms;

/// When the shared `requestState` keys change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateKeyRotation {
    /// How long one key seals before the next takes over. Default 24 hours.
    pub period: Duration,
    /// How long a sealed state lives (at most a period: an older key no longer opens).
    /// Default 10 minutes.
    pub lifetime: Duration,
}

impl Default for StateKeyRotation {
    fn default() -> Self {
        Self { period: Duration::from_secs(24 * 3600), lifetime: Duration::from_secs(600) }
    }
}

impl StateKeyRotation {
    fn period_ms(&self) -> u64 {
        self.period.as_millis().max(1000) as u64
    }

    fn epoch(&self) -> u64 {
        now_ms() / self.period_ms()
    }
}

/// The secret of period `epoch`: made now (set if absent) unless another instance made it.
async fn key_of(
    redis: &Redis,
    rotation: &StateKeyRotation,
    epoch: u64,
    create: bool,
) -> Result<Option<StateKey>, StoreError> {
    let key = redis.key(&["state-key", &epoch.to_string()]);
    if create {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret)
            .map_err(|e| StoreError(format!("no randomness for a requestState key: {e}")))?;
        let mut set = redis::cmd("SET");
        // Kept for two periods more: the key after it still opens states it sealed.
        set.arg(&key).arg(URL_SAFE_NO_PAD.encode(secret)).arg("NX").arg("PX").arg(rotation.period_ms() * 3);
        redis.run::<Option<String>>("make a requestState key", &set).await?;
    }
    let secret: Option<String> = redis.run("read a requestState key", redis::cmd("GET").arg(&key)).await?;
    let Some(secret) = secret else { return Ok(None) };
    let secret = URL_SAFE_NO_PAD
        .decode(secret)
        .map_err(|_| StoreError(format!("the requestState key {key} in Redis is not base64url")))?;
    StateKey::new(format!("r{epoch}"), secret)
        .map(Some)
        .map_err(|e| StoreError(format!("the requestState key {key} in Redis: {e}")))
}

/// The `requestState` keys every instance of a deployment shares: the current period's key
/// seals, the previous period's still opens. A task started here moves the keys on as
/// periods pass, for as long as `redis` is open.
pub async fn state_keys(redis: &Redis, rotation: StateKeyRotation) -> Result<StateKeys, StoreError> {
    let epoch = rotation.epoch();
    let current = key_of(redis, &rotation, epoch, true)
        .await?
        .ok_or_else(|| StoreError("the requestState key vanished from Redis as it was made".into()))?;
    let previous = key_of(redis, &rotation, epoch.saturating_sub(1), false).await?.into_iter().collect();
    let keys = StateKeys::new(current, previous, rotation.lifetime.min(rotation.period));
    tokio::spawn(rotate(redis.downgrade(), rotation, keys.clone(), epoch));
    Ok(keys)
}

/// Moves `keys` to each new period's key as it begins (checked every tenth of a period, at
/// most every minute), until the connection is closed; a failure is tried again at the next
/// check.
async fn rotate(
    redis: std::sync::Weak<crate::connection::Shared>,
    rotation: StateKeyRotation,
    keys: StateKeys,
    mut epoch: u64,
) {
    let check = (rotation.period / 10).min(Duration::from_secs(60)).max(Duration::from_millis(100));
    loop {
        tokio::time::sleep(check).await;
        let Some(redis) = Redis::upgrade(&redis) else { return };
        let now = rotation.epoch();
        if now == epoch {
            continue;
        }
        match key_of(&redis, &rotation, now, true).await {
            Ok(Some(next)) => {
                keys.rotate(next, 1);
                epoch = now;
                tracing::info!(key = %keys.current_id(), "the requestState key rotated");
            }
            Ok(None) => tracing::warn!("the new requestState key vanished from Redis; trying again"),
            Err(e) => tracing::warn!(error = %e, "the requestState key could not rotate; trying again"),
        }
    }
}
