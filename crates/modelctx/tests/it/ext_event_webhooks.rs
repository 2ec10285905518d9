//! Events by webhook (experimental; SEP-3415 at `5eb68628`): `events/subscribe` over real HTTP
//! with an authenticated caller, deliveries POSTed to a loopback HTTPS receiver (a certificate
//! authority of the test's own) that verifies each Standard Webhooks signature. Each test is
//! named after the draft's rule it proves (docs/extensions.md).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use modelctx::client::egress::Egress;
use modelctx::client::{Client, ClientOptions, StaticBearer};
use modelctx::protocol::events::{
    CallbackUrl, DeliveryMode, SubscribeParams, UnsubscribeParams, WebhookDelivery, codes,
};
use modelctx::server::Server;
use modelctx::server::event_webhooks::WebhookOptions;
use modelctx::server::events::{EventDef, EventOptions, Events};
use modelctx::transport::http::HttpOptions;
use modelctx::webhooks::{new_secret, verify};
use serde_json::{Value, json};

use crate::common::client::options;
use crate::common::within;
use crate::http_streams::Names;

/// One POST the receiver got.
#[derive(Clone, Debug)]
struct Delivery {
    id: String,
    subscription: String,
    signatures: String,
    body: Value,
    /// Whether a signature verified under one of the receiver's secrets.
    verified: bool,
}

/// A loopback HTTPS receiver: it verifies every POST, echoes verification challenges (unless
/// told not to), answers deliveries with the statuses queued in `answers` (then `200`), and
/// keeps what it got.
#[derive(Clone)]
struct Receiver {
    url: String,
    authority: String,
    secrets: Arc<Mutex<Vec<String>>>,
    answers: Arc<Mutex<VecDeque<u16>>>,
    echo: Arc<Mutex<bool>>,
    got: Arc<Mutex<Vec<Delivery>>>,
}

impl Receiver {
    async fn start() -> Self {
        let (acceptor, authority) = crate::common::tls::localhost_acceptor(&[b"http/1.1"]);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://localhost:{}/hooks/client1", listener.local_addr().unwrap().port());
        let receiver = Self {
            url,
            authority,
            secrets: Arc::default(),
            answers: Arc::default(),
            echo: Arc::new(Mutex::new(true)),
            got: Arc::default(),
        };
        let serving = receiver.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let Ok(tls) = acceptor.accept(tcp).await else { continue };
                let receiver = serving.clone();
                let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                    let receiver = receiver.clone();
                    async move { Ok::<_, std::convert::Infallible>(receiver.answer(request).await) }
                });
                tokio::spawn(async move {
                    let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        receiver
    }

    async fn answer(&self, request: hyper::Request<Incoming>) -> hyper::Response<String> {
        let header = |name: &str| {
            request.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
        };
        let (id, timestamp, signatures) =
            (header("webhook-id"), header("webhook-timestamp"), header("webhook-signature"));
        let subscription = header("x-mcp-subscription-id");
        let raw = request.into_body().collect().await.unwrap().to_bytes();
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        let secrets = self.secrets.lock().unwrap().clone();
        let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
        let verified = verify(&secrets, &id, &timestamp, &signatures, &raw, now).is_ok();
        let body: Value = serde_json::from_slice(&raw).unwrap_or_default();
        if body["type"] == "verification" {
            let echo = *self.echo.lock().unwrap() && verified;
            let answer = if echo { json!({"challenge": body["challenge"]}) } else { json!({"ok": true}) };
            return hyper::Response::new(answer.to_string());
        }
        self.got.lock().unwrap().push(Delivery { id, subscription, signatures, body, verified });
        let status = self.answers.lock().unwrap().pop_front().unwrap_or(200);
        let mut response = hyper::Response::new(String::new());
        *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
        response
    }

    /// The deliveries of event `event_id` once `count` have come.
    async fn deliveries_of(&self, event_id: &str, count: usize) -> Vec<Delivery> {
        within(async {
            loop {
                let got: Vec<Delivery> =
                    self.got.lock().unwrap().iter().filter(|d| d.id == event_id).cloned().collect();
                if got.len() >= count {
                    return got;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
    }
}

/// `incident.created`, by every mode, its arguments selecting a `severity`.
fn incidents() -> EventDef {
    EventDef::new("incident.created", "An incident was opened")
        .delivery(vec![DeliveryMode::Poll, DeliveryMode::Push, DeliveryMode::Webhook])
        .matching(|arguments, data| {
            arguments.get("severity").is_none_or(|wanted| data.get("severity") == Some(wanted))
        })
}

/// A hub delivering webhooks to `receiver` (loopback allowed, its authority trusted).
fn hub(receiver: &Receiver, egress: Egress) -> Events {
    let webhooks = WebhookOptions {
        egress,
        root_certificates: vec![reqwest::Certificate::from_pem(receiver.authority.as_bytes()).unwrap()],
        first_retry: Duration::from_millis(20),
        attempts: 3,
        ..WebhookOptions::default()
    };
    Events::new(EventOptions { webhooks: Some(webhooks), ..EventOptions::default() }).event(incidents())
}

/// The hub's server over HTTP for callers named by their bearer token; a client as `caller`.
async fn served(events: &Events, caller: &str) -> (Client, crate::common::http::Endpoint) {
    let server = Server::builder("webhooks", "1").events(events.clone()).build().unwrap();
    let http_options = HttpOptions { authenticator: Some(Arc::new(Names)), ..HttpOptions::default() };
    let endpoint = crate::common::http::start_serving(server, http_options).await;
    let client_options = ClientOptions { auth: Some(Arc::new(StaticBearer::new(caller))), ..options() };
    let client = Client::connect_http(&endpoint.url, Default::default(), client_options).await.unwrap();
    (client, endpoint)
}

fn subscribe_params(receiver: &Receiver, secret: &str, arguments: Value) -> SubscribeParams {
    SubscribeParams {
        name: "incident.created".into(),
        arguments: arguments.as_object().cloned().unwrap_or_default(),
        delivery: WebhookDelivery {
            mode: "webhook".into(),
            url: receiver.url.clone(),
            secret: secret.into(),
        },
        cursor: None,
        max_age_ms: None,
        ttl_ms: None,
    }
}

/// "The server POSTs events to the callback URL … `webhook-id` … `webhook-timestamp` …
/// `webhook-signature` … `X-MCP-Subscription-Id`"; "HMAC-SHA256(secret, webhook-id + "." +
/// webhook-timestamp + "." + body)"; the endpoint first proves it wants deliveries by echoing
/// a challenge. Only the occurrences the arguments select are delivered, each with its cursor.
#[tokio::test]
async fn deliveries_are_signed_verified_and_carry_the_subscription_id() {
    let receiver = Receiver::start().await;
    let secret = new_secret();
    receiver.secrets.lock().unwrap().push(secret.clone());
    let events = hub(&receiver, Egress::Any);
    let (client, _endpoint) = served(&events, "ada").await;
    let subscribed = client
        .subscribe_webhook(&subscribe_params(&receiver, &secret, json!({"severity": "P1"})))
        .await
        .unwrap();
    assert!(subscribed.id.starts_with("sub_") && subscribed.refresh_before.is_some(), "{subscribed:?}");
    assert!(!subscribed.truncated && subscribed.delivery_status.is_none());
    events.emit("incident.created", json!({"severity": "P2"}));
    let id = events.emit("incident.created", json!({"severity": "P1", "title": "database down"}));
    let delivered = receiver.deliveries_of(&id, 1).await;
    let delivered = &delivered[0];
    assert!(delivered.verified, "the signature verifies under the client's secret");
    assert_eq!(delivered.subscription, subscribed.id);
    assert_eq!(
        (delivered.body["eventId"].as_str(), delivered.body["data"]["title"].as_str()),
        (Some(id.as_str()), Some("database down"))
    );
    assert!(delivered.body["cursor"].is_string());
    assert_eq!(receiver.got.lock().unwrap().len(), 1, "the P2 incident is not this subscription's");
    let other = new_secret();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    assert!(
        verify(&[other.as_str()], &delivered.id, &now.to_string(), &delivered.signatures, b"{}", now)
            .is_err()
    );
}

/// "The server retries each event independently, with exponential backoff, on non-2xx
/// responses"; "a receiver that … does not want it retried … responds 410 Gone. The server MUST
/// treat 410 as a non-retryable failure".
#[tokio::test]
async fn failed_deliveries_are_retried_and_410_is_not() {
    let receiver = Receiver::start().await;
    let secret = new_secret();
    receiver.secrets.lock().unwrap().push(secret.clone());
    let events = hub(&receiver, Egress::Any);
    let (client, _endpoint) = served(&events, "ada").await;
    client.subscribe_webhook(&subscribe_params(&receiver, &secret, json!({}))).await.unwrap();
    receiver.answers.lock().unwrap().extend([503, 500]);
    let retried = events.emit("incident.created", json!({"n": 1}));
    let attempts = receiver.deliveries_of(&retried, 3).await;
    assert!(attempts.iter().all(|d| d.verified), "each retry is signed afresh");
    receiver.answers.lock().unwrap().push_back(410);
    let gone = events.emit("incident.created", json!({"n": 2}));
    let after = events.emit("incident.created", json!({"n": 3}));
    receiver.deliveries_of(&after, 1).await;
    assert_eq!(receiver.deliveries_of(&gone, 1).await.len(), 1, "a 410 is not retried");
}

/// "Servers MUST reject other values [than a whsec_ secret] with InvalidParams"; "Servers MUST
/// reject events/subscribe with a non-https delivery.url (InvalidParams)"; "SHOULD reject URLs
/// whose resolved IP is not globally routable … unless they are explicitly configured to allow
/// them"; an endpoint that does not echo the challenge is a `CallbackEndpointError`
/// (`challenge_failed`).
#[tokio::test]
async fn callbacks_must_be_https_public_willing_and_secrets_whsec() {
    let receiver = Receiver::start().await;
    let secret = new_secret();
    receiver.secrets.lock().unwrap().push(secret.clone());
    let code =
        |error: modelctx::client::ClientError| error.rpc_error().map(|e| (e.code.0, e.message.clone()));
    let (client, _endpoint) = served(&hub(&receiver, Egress::Any), "ada").await;
    let http = SubscribeParams {
        delivery: WebhookDelivery {
            url: receiver.url.replace("https", "http"),
            ..subscribe_params(&receiver, &secret, json!({})).delivery
        },
        ..subscribe_params(&receiver, &secret, json!({}))
    };
    let (refused, why) = code(client.subscribe_webhook(&http).await.unwrap_err()).unwrap();
    assert!(refused == -32602 && why.contains("https"), "{why}");
    let (refused, why) = code(
        client.subscribe_webhook(&subscribe_params(&receiver, "sk_live_123", json!({}))).await.unwrap_err(),
    )
    .unwrap();
    assert!(refused == -32602 && why.contains("whsec_"), "{why}");
    *receiver.echo.lock().unwrap() = false;
    let silent =
        client.subscribe_webhook(&subscribe_params(&receiver, &secret, json!({}))).await.unwrap_err();
    let silent = silent.rpc_error().unwrap();
    assert_eq!(
        (silent.code.0, silent.data.clone()),
        (codes::CALLBACK_ENDPOINT_ERROR, Some(json!({"reason": "challenge_failed"})))
    );

    let (client, _endpoint) = served(&hub(&receiver, Egress::PublicOnly), "ada").await;
    let (refused, why) =
        code(client.subscribe_webhook(&subscribe_params(&receiver, &secret, json!({}))).await.unwrap_err())
            .unwrap();
    assert!(refused == -32602 && why.contains("not a public address"), "{why}");
}

/// "events/subscribe and events/unsubscribe MUST be called with an authenticated principal.
/// Servers MUST reject calls without an authorized principal with Forbidden."
#[tokio::test]
async fn webhooks_need_an_authenticated_caller() {
    let receiver = Receiver::start().await;
    let events = hub(&receiver, Egress::Any);
    let anonymous = crate::common::client::connect(
        Server::builder("webhooks", "1").events(events).build().unwrap(),
        options(),
    )
    .await
    .unwrap();
    let refused = anonymous
        .subscribe_webhook(&subscribe_params(&receiver, &new_secret(), json!({})))
        .await
        .unwrap_err();
    assert_eq!(refused.rpc_error().unwrap().code.0, codes::FORBIDDEN, "{refused}");
}

/// "events/subscribe is idempotent … calling it again with the same subscription key refreshes
/// the TTL"; the `id` is "deterministic over (principal, delivery.url, name, arguments)";
/// "delivery.secret: Replaced … SHOULD dual-sign … with the old and new secrets for a short grace
/// window"; a refresh reports `deliveryStatus`; another principal's identical subscription is
/// another subscription; a request for no expiry is granted a finite lifetime here.
#[tokio::test]
async fn a_refresh_keeps_the_id_rotates_the_secret_and_reports_how_deliveries_fare() {
    let receiver = Receiver::start().await;
    let (old, new) = (new_secret(), new_secret());
    receiver.secrets.lock().unwrap().push(old.clone());
    let events = hub(&receiver, Egress::Any);
    let (client, _endpoint) = served(&events, "ada").await;
    let first = client.subscribe_webhook(&subscribe_params(&receiver, &old, json!({}))).await.unwrap();
    let id = events.emit("incident.created", json!({"n": 1}));
    receiver.deliveries_of(&id, 1).await;
    let forever = SubscribeParams { ttl_ms: Some(None), ..subscribe_params(&receiver, &new, json!({})) };
    let refreshed = client.subscribe_webhook(&forever).await.unwrap();
    assert_eq!(refreshed.id, first.id, "the same key, the same subscription");
    assert!(
        refreshed.refresh_before.is_some(),
        "no expiry is not granted by a server that keeps subscriptions in memory"
    );
    let status = refreshed.delivery_status.expect("a refresh reports delivery status");
    assert!(status.active && status.last_delivery_at.is_some() && status.last_error.is_none(), "{status:?}");
    // Within the grace window deliveries verify under either secret.
    *receiver.secrets.lock().unwrap() = vec![new.clone()];
    let id = events.emit("incident.created", json!({"n": 2}));
    let signed = receiver.deliveries_of(&id, 1).await;
    assert!(signed[0].verified && signed[0].signatures.split(' ').count() == 2, "{:?}", signed[0].signatures);

    let (other_caller, _other) = served(&events, "bob").await;
    let bobs = other_caller.subscribe_webhook(&subscribe_params(&receiver, &new, json!({}))).await.unwrap();
    assert_ne!(bobs.id, first.id, "the principal is part of the key");
}

/// "events/unsubscribe … stops webhook deliveries immediately"; an unknown subscription is
/// NotFound (`data.kind`: `subscription`).
#[tokio::test]
async fn unsubscribe_stops_deliveries_and_an_unknown_subscription_is_not_found() {
    let receiver = Receiver::start().await;
    let secret = new_secret();
    receiver.secrets.lock().unwrap().push(secret.clone());
    let events = hub(&receiver, Egress::Any);
    let (client, _endpoint) = served(&events, "ada").await;
    client.subscribe_webhook(&subscribe_params(&receiver, &secret, json!({"severity": "P1"}))).await.unwrap();
    client.subscribe_webhook(&subscribe_params(&receiver, &secret, json!({"severity": "P2"}))).await.unwrap();
    let key = UnsubscribeParams {
        name: "incident.created".into(),
        arguments: json!({"severity": "P1"}).as_object().cloned().unwrap(),
        delivery: CallbackUrl { url: receiver.url.clone() },
    };
    client.unsubscribe_webhook(&key).await.unwrap();
    let dropped = events.emit("incident.created", json!({"severity": "P1"}));
    let kept = events.emit("incident.created", json!({"severity": "P2"}));
    receiver.deliveries_of(&kept, 1).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(receiver.got.lock().unwrap().iter().all(|d| d.id != dropped), "nothing after unsubscribing");
    let again = client.unsubscribe_webhook(&key).await.unwrap_err();
    let again = again.rpc_error().unwrap();
    assert_eq!((again.code.0, again.data.clone()), (codes::NOT_FOUND, Some(json!({"kind": "subscription"}))));
}
