//! Webhook delivery of events (experimental, SEP-3415): `events/subscribe` and
//! `events/unsubscribe`. A subscription is keyed by (principal, callback URL, event name,
//! arguments) and held in memory for the TTL the server grants; its deliveries are POSTed one
//! after another, signed the Standard Webhooks way, retried with exponential backoff, only to
//! `https` URLs that resolve to public addresses (checked again as each connection is made)
//! unless [`WebhookOptions::egress`] allows more, never following a redirect; before the first
//! delivery to a (principal, URL) the endpoint proves it wants them by echoing a challenge.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use modelctx_protocol::events::{
    DeliveryStatus, SUBSCRIPTION_ID_HEADER, SubscribeParams, SubscribeResult, UnsubscribeParams, WEBHOOK_ID,
    WEBHOOK_SIGNATURE, WEBHOOK_TIMESTAMP, callback_endpoint_error, forbidden, not_found, resource_exhausted,
    secret_bytes,
};
use modelctx_protocol::jsonrpc::ErrorObject;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::events::{Events, Stored, random_hex};
use super::tasks::clock::{now_ms, rfc3339};
use crate::client::egress::Egress;
use crate::webhooks::{constant_time_eq, sign};

/// The bounds of webhook delivery.
#[derive(Clone, Debug)]
pub struct WebhookOptions {
    /// The lifetime granted when the client suggests none. Default 1 hour.
    pub default_ttl: Duration,
    /// The shortest lifetime granted (a shorter suggestion is raised to it). Default 1 minute.
    pub min_ttl: Duration,
    /// The longest lifetime granted; a request for no expiry gets this too (subscriptions are
    /// kept in memory, so none is granted forever). Default 24 hours.
    pub max_ttl: Duration,
    /// Subscriptions held at once, for every principal. Default 1,024.
    pub max_subscriptions: usize,
    /// Attempts per delivery before it is abandoned. Default 4.
    pub attempts: u32,
    /// The wait before the first retry; each next one doubles it. Default 1 s.
    pub first_retry: Duration,
    /// How long one POST may take. Default 5 s.
    pub timeout: Duration,
    /// Where callbacks may be: public addresses only by default.
    pub egress: Egress,
    /// Authorities trusted for callbacks' TLS besides the built-in roots.
    pub root_certificates: Vec<reqwest::Certificate>,
    /// How long deliveries stay signed with the old secret too after a refresh rotates it.
    /// Default 5 minutes.
    pub secret_grace: Duration,
}

impl Default for WebhookOptions {
    fn default() -> Self {
        Self {
            default_ttl: Duration::from_secs(3600),
            min_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(24 * 3600),
            max_subscriptions: 1024,
            attempts: 4,
            first_retry: Duration::from_secs(1),
            timeout: Duration::from_secs(5),
            egress: Egress::PublicOnly,
            root_certificates: Vec::new(),
            secret_grace: Duration::from_secs(300),
        }
    }
}

/// The secrets a subscription signs with: the current one, and the one it replaced for a
/// grace period.
struct Secrets {
    current: Vec<u8>,
    previous: Option<(Vec<u8>, Instant)>,
}

/// One webhook subscription.
struct Subscription {
    id: String,
    /// The event type.
    name: String,
    url: reqwest::Url,
    secrets: Mutex<Secrets>,
    expires: Mutex<Instant>,
    status: Mutex<DeliveryStatus>,
    /// The position every delivery at or before which was accepted or abandoned.
    watermark: AtomicU64,
    stop: CancellationToken,
}

/// A server's webhook subscriptions and the client that delivers to them.
pub(crate) struct Webhooks {
    options: WebhookOptions,
    http: reqwest::Client,
    subscriptions: Mutex<HashMap<String, Arc<Subscription>>>,
    /// (principal, URL) pairs whose endpoint echoed a challenge.
    verified: Mutex<HashMap<(String, String), Instant>>,
}

/// Why a POST failed, as the draft's categories say it (never the endpoint's own words).
fn category(error: &reqwest::Error) -> &'static str {
    let text = format!("{error:?}").to_lowercase();
    if error.is_timeout() {
        "timeout"
    } else if text.contains("certificate") || text.contains("tls") || text.contains("handshake") {
        "tls_error"
    } else {
        "connection_refused"
    }
}

fn status_category(status: reqwest::StatusCode) -> &'static str {
    if status.is_client_error() { "http_4xx" } else { "http_5xx" }
}

fn unix_seconds() -> u64 {
    now_ms() / 1000
}

impl Webhooks {
    pub(crate) fn new(options: WebhookOptions) -> Result<Self, String> {
        let mut builder = options
            .egress
            .client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(options.timeout);
        for authority in &options.root_certificates {
            builder = builder.add_root_certificate(authority.clone());
        }
        let http = builder.build().map_err(|e| format!("the webhook client could not be built: {e}"))?;
        Ok(Self { options, http, subscriptions: Mutex::default(), verified: Mutex::default() })
    }

    /// The callback URL, if it may be delivered to: `https`, and a host that is (or resolves
    /// to) an allowed address.
    async fn callback(&self, url: &str) -> Result<reqwest::Url, ErrorObject> {
        let refused = |why: String| ErrorObject::invalid_params(format!("delivery.url {url:?}: {why}"));
        let parsed = reqwest::Url::parse(url).map_err(|e| refused(e.to_string()))?;
        if parsed.scheme() != "https" {
            return Err(refused("webhook callbacks must be https".into()));
        }
        self.options.egress.check_url(&parsed).map_err(refused)?;
        let host =
            parsed.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_owned();
        let port = parsed.port_or_known_default().unwrap_or(443);
        let addresses = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| refused(format!("it does not resolve: {e}")))?;
        for address in addresses {
            if !self.options.egress.allows(address.ip()) {
                return Err(refused(format!(
                    "it resolves to {}, which is not a public address",
                    address.ip()
                )));
            }
        }
        Ok(parsed)
    }

    /// The lifetime granted for a suggestion (see [`WebhookOptions`]).
    fn grant(&self, suggested: Option<Option<u64>>) -> Duration {
        match suggested {
            None => self.options.default_ttl,
            Some(None) => self.options.max_ttl,
            Some(Some(ms)) => Duration::from_millis(ms).clamp(self.options.min_ttl, self.options.max_ttl),
        }
    }

    /// POSTs `body` to `subscription` once, signed now; the outcome's category on failure, and
    /// whether it is worth retrying.
    async fn post(
        &self,
        subscription: &Subscription,
        message_id: &str,
        body: &[u8],
    ) -> Result<reqwest::Response, (&'static str, bool)> {
        let timestamp = unix_seconds();
        let signatures = {
            let mut secrets = subscription.secrets.lock().unwrap_or_else(PoisonError::into_inner);
            if secrets.previous.as_ref().is_some_and(|(_, until)| *until < Instant::now()) {
                secrets.previous = None;
            }
            let mut signatures = vec![sign(&secrets.current, message_id, timestamp, body)];
            if let Some((previous, _)) = &secrets.previous {
                signatures.push(sign(previous, message_id, timestamp, body));
            }
            signatures.join(" ")
        };
        let sent = self
            .http
            .post(subscription.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(WEBHOOK_ID, message_id)
            .header(WEBHOOK_TIMESTAMP, timestamp.to_string())
            .header(WEBHOOK_SIGNATURE, signatures)
            .header(SUBSCRIPTION_ID_HEADER, &subscription.id)
            .body(body.to_vec())
            .send()
            .await;
        match sent {
            Ok(response) if response.status().is_success() => Ok(response),
            // Gone or too large: the endpoint does not want this one again.
            Ok(response) if matches!(response.status().as_u16(), 410 | 413) => {
                Err((status_category(response.status()), false))
            }
            Ok(response) => Err((status_category(response.status()), true)),
            Err(error) => Err((category(&error), true)),
        }
    }

    /// Delivers `body` with retries and backoff; whether the endpoint accepted it.
    async fn deliver(&self, subscription: &Subscription, message_id: &str, body: &[u8]) -> bool {
        let mut wait = self.options.first_retry;
        for attempt in 1..=self.options.attempts.max(1) {
            match self.post(subscription, message_id, body).await {
                Ok(_) => {
                    let mut status = subscription.status.lock().unwrap_or_else(PoisonError::into_inner);
                    status.last_delivery_at = Some(rfc3339(now_ms()));
                    status.failed_since = None;
                    return true;
                }
                Err((reason, retry)) => {
                    {
                        let mut status = subscription.status.lock().unwrap_or_else(PoisonError::into_inner);
                        status.last_error = Some(reason.into());
                        status.failed_since.get_or_insert_with(|| rfc3339(now_ms()));
                    }
                    tracing::debug!(subscription = %subscription.id, attempt, reason, "a webhook delivery failed");
                    if !retry || attempt == self.options.attempts {
                        return false;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = subscription.stop.cancelled() => return false,
                    }
                    wait *= 2;
                }
            }
        }
        false
    }

    /// The endpoint proves it wants deliveries by echoing a challenge (once per principal and
    /// URL while the server runs).
    async fn verify_endpoint(&self, principal: &str, subscription: &Subscription) -> Result<(), ErrorObject> {
        let key = (principal.to_owned(), subscription.url.to_string());
        if self.verified.lock().unwrap_or_else(PoisonError::into_inner).contains_key(&key) {
            return Ok(());
        }
        let challenge = random_hex(16);
        let body =
            serde_json::to_vec(&json!({"type": "verification", "challenge": challenge})).unwrap_or_default();
        let message_id = format!("msg_verification_{}", random_hex(8));
        let response = self
            .post(subscription, &message_id, &body)
            .await
            .map_err(|(reason, _)| callback_endpoint_error(reason))?;
        let echoed = response.bytes().await.map_err(|_| callback_endpoint_error("challenge_failed"))?;
        let echoed: Value =
            serde_json::from_slice(&echoed).map_err(|_| callback_endpoint_error("challenge_failed"))?;
        let echoed = echoed.get("challenge").and_then(Value::as_str).unwrap_or_default();
        if !constant_time_eq(echoed.as_bytes(), challenge.as_bytes()) {
            return Err(callback_endpoint_error("challenge_failed"));
        }
        self.verified.lock().unwrap_or_else(PoisonError::into_inner).insert(key, Instant::now());
        Ok(())
    }
}

/// The subscription id of a key: `sub_` and 16 hex digits of its SHA-256.
fn derive_id(principal: &str, url: &str, name: &str, arguments: &serde_json::Map<String, Value>) -> String {
    let key = serde_json::to_vec(&json!([principal, url, name, arguments])).unwrap_or_default();
    let digest = Sha256::digest(&key);
    format!("sub_{}", digest.iter().take(8).map(|b| format!("{b:02x}")).collect::<String>())
}

impl Events {
    /// `events/subscribe`: makes or refreshes the subscription of `principal`.
    pub(crate) async fn subscribe(
        &self,
        principal: Option<String>,
        params: SubscribeParams,
    ) -> Result<SubscribeResult, ErrorObject> {
        let webhooks = self.webhooks()?;
        let principal =
            principal.ok_or_else(|| forbidden("webhook subscriptions need an authenticated caller"))?;
        let matches =
            self.offered(&params.name, modelctx_protocol::events::DeliveryMode::Webhook, &params.arguments)?;
        let url = webhooks.callback(&params.delivery.url).await?;
        let secret = secret_bytes(&params.delivery.secret)
            .map_err(|why| ErrorObject::invalid_params(format!("delivery.secret: {why}")))?;
        let id = derive_id(&principal, url.as_str(), &params.name, &params.arguments);
        let granted = webhooks.grant(params.ttl_ms);
        let refresh_before = Some(rfc3339(now_ms() + u64::try_from(granted.as_millis()).unwrap_or(u64::MAX)));
        let live = webhooks.subscriptions.lock().unwrap_or_else(PoisonError::into_inner).get(&id).cloned();
        if let Some(existing) = live.filter(|s| !s.stop.is_cancelled()) {
            {
                let mut secrets = existing.secrets.lock().unwrap_or_else(PoisonError::into_inner);
                if secrets.current != secret {
                    let old = std::mem::replace(&mut secrets.current, secret);
                    secrets.previous = Some((old, Instant::now() + webhooks.options.secret_grace));
                }
            }
            *existing.expires.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now() + granted;
            let status = {
                let mut status = existing.status.lock().unwrap_or_else(PoisonError::into_inner);
                let reported = status.clone();
                status.active = true;
                reported
            };
            let cursor = Some(self.cursor(existing.watermark.load(Ordering::Acquire)));
            return Ok(SubscribeResult {
                result_type: "complete".into(),
                id,
                refresh_before,
                cursor,
                truncated: false,
                delivery_status: Some(status),
            });
        }
        if webhooks.subscriptions.lock().unwrap_or_else(PoisonError::into_inner).len()
            >= webhooks.options.max_subscriptions
        {
            return Err(resource_exhausted("subscriptions", webhooks.options.max_subscriptions));
        }
        let subscription = Arc::new(Subscription {
            id: id.clone(),
            name: params.name.clone(),
            url,
            secrets: Mutex::new(Secrets { current: secret, previous: None }),
            expires: Mutex::new(Instant::now() + granted),
            status: Mutex::new(DeliveryStatus {
                active: true,
                last_delivery_at: None,
                last_error: None,
                failed_since: None,
            }),
            watermark: AtomicU64::new(0),
            stop: CancellationToken::new(),
        });
        webhooks.verify_endpoint(&principal, &subscription).await?;
        let (live, replay, start) = self.follow(
            params.cursor.as_deref(),
            params.max_age_ms,
            &params.name,
            &params.arguments,
            &matches,
        )?;
        subscription.watermark.store(start.after, Ordering::Release);
        webhooks
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), Arc::clone(&subscription));
        let cursor = Some(self.cursor(start.after));
        let events = self.clone();
        let (name, arguments) = (params.name, params.arguments);
        tokio::spawn(async move {
            let wanted = move |stored: &Stored| {
                stored.occurrence.name == name && matches(&arguments, &stored.occurrence.data)
            };
            events.run_webhook(&subscription, replay, live, wanted).await;
            if let Ok(webhooks) = events.webhooks() {
                let mut subscriptions = webhooks.subscriptions.lock().unwrap_or_else(PoisonError::into_inner);
                if subscriptions.get(&subscription.id).is_some_and(|kept| Arc::ptr_eq(kept, &subscription)) {
                    subscriptions.remove(&subscription.id);
                }
            }
        });
        Ok(SubscribeResult {
            result_type: "complete".into(),
            id,
            refresh_before,
            cursor,
            truncated: start.truncated,
            delivery_status: None,
        })
    }

    /// `events/unsubscribe`: ends the subscription of `principal` with that key.
    pub(crate) fn unsubscribe(
        &self,
        principal: Option<String>,
        params: UnsubscribeParams,
    ) -> Result<(), ErrorObject> {
        let webhooks = self.webhooks()?;
        let principal =
            principal.ok_or_else(|| forbidden("webhook subscriptions need an authenticated caller"))?;
        let url = reqwest::Url::parse(&params.delivery.url)
            .map_err(|e| ErrorObject::invalid_params(format!("delivery.url: {e}")))?;
        let id = derive_id(&principal, url.as_str(), &params.name, &params.arguments);
        let removed = webhooks.subscriptions.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
        let removed = removed.ok_or_else(|| not_found("subscription", "NotFound: no such subscription"))?;
        removed.stop.cancel();
        Ok(())
    }

    /// Delivers what the cursor missed, then each occurrence `wanted` selects as it is emitted,
    /// until the subscription expires or is ended.
    async fn run_webhook(
        &self,
        subscription: &Subscription,
        replay: Vec<Arc<Stored>>,
        mut live: broadcast::Receiver<Arc<Stored>>,
        wanted: impl Fn(&Stored) -> bool,
    ) {
        let Ok(webhooks) = self.webhooks() else { return };
        let mut removals = self.removals();
        for stored in replay {
            self.deliver_one(webhooks, subscription, &stored).await;
        }
        loop {
            let expires = *subscription.expires.lock().unwrap_or_else(PoisonError::into_inner);
            let heard = tokio::select! {
                () = subscription.stop.cancelled() => return,
                Ok(removed) = removals.recv() => {
                    if removed == subscription.name {
                        // The type is gone: a signed `terminated` envelope, and the end.
                        let ended = json!({"type": "terminated", "error": super::events::removed_type(&removed)});
                        let body = serde_json::to_vec(&ended).unwrap_or_default();
                        webhooks.deliver(subscription, &format!("msg_terminated_{}", random_hex(8)), &body).await;
                        subscription.stop.cancel();
                        return;
                    }
                    continue;
                }
                () = tokio::time::sleep_until(expires.into()) => {
                    // A refresh may have moved the expiry meanwhile.
                    if *subscription.expires.lock().unwrap_or_else(PoisonError::into_inner) <= Instant::now() {
                        subscription.stop.cancel();
                        return;
                    }
                    continue;
                }
                heard = live.recv() => heard,
            };
            match heard {
                Ok(stored) if stored.seq > subscription.watermark.load(Ordering::Acquire) => {
                    if wanted(&stored) {
                        self.deliver_one(webhooks, subscription, &stored).await;
                    }
                    subscription.watermark.store(stored.seq, Ordering::Release);
                }
                Ok(_) => {}
                // Occurrences went by unheard: a gap envelope with a fresh cursor.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let head = self.head();
                    subscription.watermark.store(head, Ordering::Release);
                    let body = serde_json::to_vec(&json!({"type": "gap", "cursor": self.cursor(head)}))
                        .unwrap_or_default();
                    webhooks.deliver(subscription, &format!("msg_gap_{}", random_hex(8)), &body).await;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    async fn deliver_one(&self, webhooks: &Webhooks, subscription: &Subscription, stored: &Stored) {
        let occurrence = modelctx_protocol::events::EventOccurrence {
            cursor: Some(self.cursor(stored.seq)),
            ..stored.occurrence.clone()
        };
        let body = serde_json::to_vec(&occurrence).unwrap_or_default();
        // Accepted or abandoned, the position is passed: the watermark moves on either way.
        webhooks.deliver(subscription, &stored.occurrence.event_id, &body).await;
        subscription.watermark.store(stored.seq, Ordering::Release);
    }
}
