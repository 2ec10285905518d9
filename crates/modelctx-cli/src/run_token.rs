//! A token made for one run of a local endpoint (the web inspector, the gateway): whoever holds
//! it may use the endpoint, and loopback alone is no such proof (every local user and process
//! reaches it). `modelctx gateway` checks it as a bearer token ([`TokenGate`]).

use futures::future::BoxFuture;
use modelctx::server::Principal;
use modelctx::transport::http::{Authenticator, Denial, RequestHead};
use serde_json::{Value, json};

/// 32 random bytes in hex.
pub(crate) fn random_token() -> std::io::Result<String> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Compares in time that does not depend on where the strings differ.
pub(crate) fn same(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0, |diff, (a, b)| diff | (a ^ b)) == 0
}

/// An endpoint's authenticator that lets in the callers sending `Authorization: Bearer TOKEN`
/// with the run's token, each as the one principal `run-token`.
#[derive(Debug)]
pub(crate) struct TokenGate {
    token: String,
}

impl TokenGate {
    /// Lets in the holders of `token`.
    pub(crate) fn new(token: String) -> Self {
        Self { token }
    }

    fn refused(&self, status: u16, error: &str, description: &str) -> Denial {
        Denial {
            status,
            challenge: format!("Bearer error=\"{error}\""),
            error: error.to_owned(),
            description: description.to_owned(),
            dpop_nonce: None,
        }
    }
}

impl Authenticator for TokenGate {
    fn metadata_paths(&self) -> Vec<String> {
        Vec::new()
    }

    fn metadata(&self) -> Value {
        json!({})
    }

    fn authenticate<'a>(&'a self, request: RequestHead<'a>) -> BoxFuture<'a, Result<Principal, Denial>> {
        let given =
            request.headers.get(axum::http::header::AUTHORIZATION).and_then(|value| value.to_str().ok());
        let bearer = given.and_then(|value| value.strip_prefix("Bearer ").map(str::trim));
        let outcome = match bearer {
            Some(bearer) if same(bearer, &self.token) => Ok(Principal::new(None, "run-token", Vec::new())),
            _ => Err(self.refused(
                401,
                "invalid_token",
                "send the token this endpoint printed when it started: Authorization: Bearer TOKEN",
            )),
        };
        Box::pin(async move { outcome })
    }

    fn insufficient_scope(&self, needed: &[String]) -> Denial {
        self.refused(
            403,
            "insufficient_scope",
            &format!("the run token holds no scope; needed: {}", needed.join(" ")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_compared_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abd", "abc") && !same("ab", "abc") && !same("", "abc"));
        let token = random_token().unwrap();
        assert_eq!(token.len(), 64);
        assert_ne!(token, random_token().unwrap());
    }
}
