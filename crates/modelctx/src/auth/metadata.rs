//! The metadata documents of OAuth discovery: a protected resource's (RFC 9728) and an
//! authorization server's (RFC 8414, or OpenID Connect Discovery), and the well-known URLs
//! each is looked for at, in the order the MCP specification gives.

use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A protected resource's metadata (RFC 9728 §2): which authorization servers issue tokens
/// for it, and what it accepts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceMetadata {
    /// The resource's identifier: the URL tokens are requested for (`resource`, RFC 8707).
    pub resource: String,
    /// The issuers of the authorization servers that grant tokens for the resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource uses, when it lists them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How a token may be presented; MCP allows only `header`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// The DPoP proof algorithms the resource accepts (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Whether the resource accepts only DPoP-bound tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_bound_access_tokens_required: Option<bool>,
    /// Every other member, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An authorization server's metadata (RFC 8414 §2; OpenID Connect Discovery §3 uses the
/// same names for what MCP needs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerMetadata {
    /// The issuer identifier; it must equal the one the document was looked up for.
    pub issuer: String,
    /// Where the user is sent to authorize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes, refresh tokens and assertions are exchanged for tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// Dynamic client registration (RFC 7591), when offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// The scopes the server knows, when it lists them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// The grant types offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// How clients authenticate at the token endpoint; RFC 8414 defaults to
    /// `client_secret_basic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// The algorithms a `private_key_jwt` assertion may be signed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// The PKCE methods offered; a server that names none cannot be used (AUTH-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether a URL may be the `client_id` (Client ID Metadata Documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether authorization responses carry `iss` (RFC 9207 §3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// The DPoP proof algorithms the server accepts (RFC 9449 §5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
    /// Every other member, kept as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl ServerMetadata {
    /// Whether `method` is among the token endpoint authentication methods, counting RFC
    /// 8414's default (`client_secret_basic`) when none are listed.
    pub fn allows_auth_method(&self, method: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }

    /// Whether PKCE with `S256` is offered.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256"))
    }

    /// Whether `scope` is listed in `scopes_supported`.
    pub fn lists_scope(&self, scope: &str) -> bool {
        self.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == scope))
    }
}

/// Where a resource's metadata may be, in order (RFC 9728 §3.1 and the MCP specification):
/// under the well-known prefix with the resource's path, then at the origin's root.
pub fn resource_metadata_urls(resource: &Url) -> Vec<Url> {
    let path = resource.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(at_origin(resource, &format!("/.well-known/oauth-protected-resource{path}")));
    }
    urls.push(at_origin(resource, "/.well-known/oauth-protected-resource"));
    urls
}

/// Where an authorization server's metadata may be, in the order of the MCP specification:
/// for an issuer with a path, RFC 8414 path insertion, OpenID Connect path insertion, then
/// OpenID Connect path appending; for one without, RFC 8414 then OpenID Connect.
pub fn server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        return vec![
            at_origin(issuer, "/.well-known/oauth-authorization-server"),
            at_origin(issuer, "/.well-known/openid-configuration"),
        ];
    }
    vec![
        at_origin(issuer, &format!("/.well-known/oauth-authorization-server{path}")),
        at_origin(issuer, &format!("/.well-known/openid-configuration{path}")),
        at_origin(issuer, &format!("{path}/.well-known/openid-configuration")),
    ]
}

/// `path` on `url`'s origin, with no query or fragment.
fn at_origin(url: &Url, path: &str) -> Url {
    let mut at = url.clone();
    at.set_path(path);
    at.set_query(None);
    at.set_fragment(None);
    at
}

/// The canonical URI of an MCP server (the `resource` of RFC 8707 as the MCP specification
/// defines it): scheme and host lowercased, no fragment, no query, no trailing slash unless
/// the path is the root alone.
pub fn canonical_resource(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.set_query(None);
    // `Url` lowercases scheme and host already and writes an empty path as `/`.
    let text = url.to_string();
    text.strip_suffix('/').map(str::to_owned).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn texts(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn auth_10_resource_metadata_is_looked_for_with_the_path_then_at_the_root() {
        assert_eq!(
            texts(resource_metadata_urls(&url("https://example.com/public/mcp?x=1"))),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            texts(resource_metadata_urls(&url("https://example.com/"))),
            ["https://example.com/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn auth_12_server_metadata_urls_in_the_specified_order() {
        assert_eq!(
            texts(server_metadata_urls(&url("https://auth.example.com/tenant1"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            texts(server_metadata_urls(&url("https://auth.example.com"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn auth_36_the_canonical_resource_has_no_trailing_slash_fragment_or_uppercase() {
        assert_eq!(
            canonical_resource(&url("HTTPS://MCP.Example.com/mcp#frag")),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(canonical_resource(&url("https://mcp.example.com/")), "https://mcp.example.com");
        assert_eq!(canonical_resource(&url("https://mcp.example.com:8443")), "https://mcp.example.com:8443");
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com/server/")),
            "https://mcp.example.com/server"
        );
    }

    #[test]
    fn unknown_members_are_kept_and_defaults_apply() {
        let metadata: ServerMetadata = serde_json::from_value(serde_json::json!({
            "issuer": "https://as.example", "token_endpoint": "https://as.example/token",
            "x_vendor": 1
        }))
        .unwrap();
        assert!(metadata.allows_auth_method("client_secret_basic"));
        assert!(!metadata.allows_auth_method("none"));
        assert!(!metadata.supports_s256());
        assert_eq!(metadata.other.get("x_vendor"), Some(&serde_json::json!(1)));
    }
}
