//! Demonstrating Proof of Possession (DPoP, RFC 9449): a key of the client's own, and a
//! fresh signed proof for each HTTP request, so a stolen token is useless without the key.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::pkcs8::EncodePrivateKey;
use reqwest::Url;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::store::{Secret, unix_now};
use super::{AuthError, pkce};

/// A P-256 key that signs DPoP proofs (`ES256`). Keep it with the tokens bound to it: a
/// DPoP-bound token works only with the key it was issued for.
#[derive(Clone)]
pub struct DpopKey {
    pkcs8: Secret,
    encoding: EncodingKey,
    jwk: Jwk,
}

impl std::fmt::Debug for DpopKey {
    /// Shows the public key's thumbprint, never the private key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("jkt", &self.thumbprint()).finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct Claims<'a> {
    jti: String,
    htm: &'a str,
    htu: String,
    iat: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nonce: Option<&'a str>,
}

impl DpopKey {
    /// A new random key.
    pub fn generate() -> Result<Self, AuthError> {
        let mut seed = [0u8; 32];
        loop {
            getrandom::fill(&mut seed)
                .map_err(|e| AuthError::Config(format!("no randomness for a DPoP key: {e}")))?;
            // A seed of zero or above the curve's order is no key: draw again (odds 2^-32).
            if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&seed) {
                let der = key.to_pkcs8_der().map_err(|e| AuthError::Config(format!("DPoP key: {e}")))?;
                return Self::from_pkcs8(&URL_SAFE_NO_PAD.encode(der.as_bytes()));
            }
        }
    }

    /// The key kept by [`DpopKey::to_pkcs8`].
    pub fn from_pkcs8(encoded: &str) -> Result<Self, AuthError> {
        let der = URL_SAFE_NO_PAD.decode(encoded).map_err(|e| AuthError::Config(format!("DPoP key: {e}")))?;
        let encoding = EncodingKey::from_ec_der(&der);
        let jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256)
            .map_err(|e| AuthError::Config(format!("DPoP key: {e}")))?;
        Ok(Self { pkcs8: Secret::new(encoded), encoding, jwk })
    }

    /// The private key as base64url PKCS#8, for a credential store.
    pub fn to_pkcs8(&self) -> Secret {
        self.pkcs8.clone()
    }

    /// The RFC 7638 SHA-256 thumbprint of the public key: the `jkt` a bound token names.
    pub fn thumbprint(&self) -> String {
        self.jwk.thumbprint(ThumbprintHash::SHA256).unwrap_or_default()
    }

    /// A proof for `method url` (the URL without query and fragment as `htu`), bound to
    /// `access_token` (`ath`) when one is sent, carrying the server's `nonce` when it gave one.
    pub fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut htu = url.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(self.jwk.clone());
        let claims = Claims {
            jti: pkce::random_string()?,
            htm: method,
            htu: htu.into(),
            iat: unix_now(),
            ath: access_token.map(|token| URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))),
            nonce,
        };
        jsonwebtoken::encode(&header, &claims, &self.encoding)
            .map_err(|e| AuthError::Config(format!("a DPoP proof could not be signed: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_names_the_request_the_token_and_the_public_key_only() {
        let key = DpopKey::generate().unwrap();
        let url = Url::parse("https://mcp.example.com/mcp?x=1#f").unwrap();
        let proof = key.proof("POST", &url, Some("token-1"), Some("n-1")).unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "the private key never leaves");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"token-1")));
        let again = key.proof("POST", &url, None, None).unwrap();
        assert_ne!(decode(again.split('.').nth(1).unwrap())["jti"], claims["jti"], "a fresh jti each time");
        assert!(decode(again.split('.').nth(1).unwrap()).get("ath").is_none());
    }

    #[test]
    fn a_kept_key_is_the_same_key() {
        let key = DpopKey::generate().unwrap();
        let kept = DpopKey::from_pkcs8(key.to_pkcs8().expose()).unwrap();
        assert_eq!(kept.thumbprint(), key.thumbprint());
        assert_eq!(key.thumbprint().len(), 43);
        assert!(!format!("{key:?}").contains(key.to_pkcs8().expose()));
    }
}
