//! Who sent a request: the principal an HTTP authenticator verified from its access token.

use modelctx_protocol::JsonObject;

/// The verified caller of a request over HTTP with an authenticator: the token's subject,
/// client, scopes and claims. Handlers read it with
/// [`RequestContext::principal`](super::RequestContext::principal); it is never taken from
/// anything the client merely says.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Principal {
    /// The issuer of the token (`iss`).
    pub issuer: Option<String>,
    /// The subject (`sub`): the user, or the client acting on its own behalf.
    pub subject: String,
    /// The OAuth client the token was issued to (`client_id` or `azp`), when it says.
    pub client_id: Option<String>,
    /// The scopes granted (`scope`, or `scp`).
    pub scopes: Vec<String>,
    /// Every claim of the token (or of its introspection).
    pub claims: JsonObject,
}

impl Principal {
    /// A principal `subject` of `issuer` holding `scopes`.
    pub fn new(issuer: Option<String>, subject: impl Into<String>, scopes: Vec<String>) -> Self {
        Self { issuer, subject: subject.into(), client_id: None, scopes, claims: JsonObject::new() }
    }

    /// The same principal, naming the client the token was issued to.
    pub fn with_client(mut self, client_id: Option<String>) -> Self {
        self.client_id = client_id;
        self
    }

    /// The same principal, with the token's claims.
    pub fn with_claims(mut self, claims: JsonObject) -> Self {
        self.claims = claims;
        self
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Those of `scopes` not granted.
    pub fn missing<'a>(&self, scopes: &'a [String]) -> Vec<&'a str> {
        scopes.iter().filter(|s| !self.has_scope(s)).map(String::as_str).collect()
    }

    /// What a session or a sealed request state is bound to: the issuer and the subject.
    pub fn key(&self) -> String {
        format!("{}\u{0}{}", self.issuer.as_deref().unwrap_or_default(), self.subject)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_and_binding_keys() {
        let alice = Principal::new(Some("https://as".into()), "alice", vec!["read".into()]);
        assert!(alice.has_scope("read") && !alice.has_scope("write"));
        assert_eq!(alice.missing(&["read".into(), "write".into()]), ["write"]);
        let other_issuer = Principal::new(Some("https://other".into()), "alice", vec![]);
        assert_ne!(
            alice.key(),
            other_issuer.key(),
            "the same subject of another issuer is another principal"
        );
    }
}
