//! Standard Webhooks signatures (experimental; the profile SEP-3415 uses for event deliveries):
//! a delivery is signed `v1,` + base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` with
//! the secret's bytes, and verified by a receiver against the raw body, within a freshness
//! window. What a server delivering and a receiver checking both need, in one place.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use modelctx_protocol::events::{SECRET_PREFIX, secret_bytes};
use sha2::Sha256;

/// How old a delivery's timestamp may be (or how far ahead) before a receiver refuses it.
pub const TOLERANCE_SECONDS: u64 = 5 * 60;

/// A fresh `whsec_` secret of 32 random bytes, as a client should make one.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    if getrandom::fill(&mut bytes).is_err() {
        // No randomness: a secret is never made of zeros; panicking is the only honest answer.
        panic!("the operating system gave no random bytes for a webhook secret");
    }
    format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes))
}

/// The `v1,` signature of a delivery with `id`, `timestamp` (Unix seconds) and `body`, under
/// `key` (a secret's bytes).
pub fn sign(key: &[u8], id: &str, timestamp: u64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// Why a delivery did not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unverified {
    /// A header is missing or malformed.
    Malformed(&'static str),
    /// Its timestamp is outside the window.
    Stale,
    /// No signature matches any of the secrets.
    BadSignature,
}

impl std::fmt::Display for Unverified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed(header) => write!(f, "the {header} header is missing or malformed"),
            Self::Stale => write!(f, "the delivery's timestamp is more than {TOLERANCE_SECONDS} s away"),
            Self::BadSignature => write!(f, "no signature verifies under the secrets given"),
        }
    }
}

impl std::error::Error for Unverified {}

/// Checks a delivery as a receiver must: `signatures` (the `webhook-signature` header, several
/// space-separated during a rotation) against the raw `body` under any of `secrets`
/// (`whsec_…`), its `timestamp` within [`TOLERANCE_SECONDS`] of `now` (Unix seconds).
pub fn verify(
    secrets: &[&str],
    id: &str,
    timestamp: &str,
    signatures: &str,
    body: &[u8],
    now: u64,
) -> Result<(), Unverified> {
    let timestamp: u64 = timestamp.parse().map_err(|_| Unverified::Malformed("webhook-timestamp"))?;
    if timestamp.abs_diff(now) > TOLERANCE_SECONDS {
        return Err(Unverified::Stale);
    }
    if id.is_empty() {
        return Err(Unverified::Malformed("webhook-id"));
    }
    let offered: Vec<&[u8]> = signatures
        .split(' ')
        .filter_map(|signature| signature.strip_prefix("v1,"))
        .map(str::as_bytes)
        .collect();
    if offered.is_empty() {
        return Err(Unverified::Malformed("webhook-signature"));
    }
    for secret in secrets {
        let Ok(key) = secret_bytes(secret) else { continue };
        let expected = sign(&key, id, timestamp, body);
        let expected = &expected.as_bytes()["v1,".len()..];
        if offered.iter().any(|candidate| constant_time_eq(candidate, expected)) {
            return Ok(());
        }
    }
    Err(Unverified::BadSignature)
}

/// Whether `a` and `b` are equal, compared without an early exit on the first differing
/// byte (a signature or a challenge must not leak how much of it matched).
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Standard Webhooks specification's example: secret, id, timestamp, body and the
    /// signature it gives.
    #[test]
    fn the_standard_webhooks_example_signs_and_verifies() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let (id, timestamp) = ("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330);
        let body = br#"{"test": 2432232314}"#;
        let signed = sign(&secret_bytes(secret).unwrap(), id, timestamp, body);
        assert_eq!(signed, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert_eq!(
            verify(&[secret], id, "1614265330", &format!("v1,bm90IGl0 {signed}"), body, timestamp + 10),
            Ok(())
        );
        assert_eq!(
            verify(&[secret], id, "1614265330", &signed, b"{}", timestamp),
            Err(Unverified::BadSignature)
        );
        assert_eq!(
            verify(&[secret], id, "1614265330", &signed, body, timestamp + 301),
            Err(Unverified::Stale)
        );
        assert!(new_secret().starts_with("whsec_") && secret_bytes(&new_secret()).unwrap().len() == 32);
    }
}
