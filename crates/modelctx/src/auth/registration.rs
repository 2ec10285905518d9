//! Getting a client identity at an authorization server, in the specification's order
//! (AUTH-20): a pre-registered client, a Client ID Metadata Document URL, one registered
//! before and kept, or dynamic client registration (RFC 7591).

use reqwest::Url;
use serde::Deserialize;
use serde_json::json;

use super::AuthError;
use super::fetch::Fetcher;
use super::metadata::ServerMetadata;
use super::options::{Grant, OAuthOptions};
use super::store::{RegisteredClient, Secret};

/// What dynamic registration answers (RFC 7591 §3.2.1).
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<Secret>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

/// The identity to present at `issuer`, and whether it is new (to be kept).
pub(crate) async fn client_for(
    options: &OAuthOptions,
    fetcher: &Fetcher,
    issuer: &str,
    metadata: &ServerMetadata,
    kept: Option<&RegisteredClient>,
    redirect_uri: Option<&str>,
) -> Result<(RegisteredClient, bool), AuthError> {
    if let Some(client) = &options.client {
        return match client.issuer.as_deref() {
            Some(bound) if bound != issuer => Err(AuthError::Registration(format!(
                "the pre-registered client {} belongs to {bound}, but the server's authorization server is {issuer}",
                client.client_id
            ))),
            _ => Ok((
                RegisteredClient {
                    client_id: client.client_id.clone(),
                    client_secret: client.client_secret.clone(),
                    auth_method: None,
                    redirect_uris: Vec::new(),
                },
                false,
            )),
        };
    }
    if let Some(url) = &options.client_metadata_url
        && metadata.client_id_metadata_document_supported == Some(true)
    {
        let client = RegisteredClient {
            client_id: url.clone(),
            client_secret: None,
            auth_method: Some("none".into()),
            redirect_uris: Vec::new(),
        };
        return Ok((client, false));
    }
    if let Some(kept) = kept
        && redirect_uri.is_none_or(|uri| {
            kept.redirect_uris.is_empty() || kept.redirect_uris.iter().any(|r| same_redirect(r, uri))
        })
    {
        return Ok((kept.clone(), false));
    }
    let Some(endpoint) = &metadata.registration_endpoint else {
        return Err(AuthError::Registration(format!(
            "{issuer} offers no dynamic registration and no client metadata documents: give a pre-registered client"
        )));
    };
    register(options, fetcher, endpoint, metadata, redirect_uri).await.map(|client| (client, true))
}

/// Whether a registered redirect URI covers `uri`: the same, or both loopback `http` URIs
/// differing only in the port (RFC 8252 §7.3: a native client's listener gets a new port each
/// time, and authorization servers allow any).
fn same_redirect(registered: &str, uri: &str) -> bool {
    if registered == uri {
        return true;
    }
    let (Ok(mut a), Ok(mut b)) = (Url::parse(registered), Url::parse(uri)) else { return false };
    let loopback = |u: &Url| u.scheme() == "http" && crate::client::browser::is_loopback_host(u);
    if !(loopback(&a) && loopback(&b)) {
        return false;
    }
    let _ = (a.set_port(None), b.set_port(None));
    a == b
}

/// Dynamic client registration: a public client (`none`) where the server allows it, else
/// a confidential one with the first secret method it lists.
async fn register(
    options: &OAuthOptions,
    fetcher: &Fetcher,
    endpoint: &str,
    metadata: &ServerMetadata,
    redirect_uri: Option<&str>,
) -> Result<RegisteredClient, AuthError> {
    let url = Url::parse(endpoint).map_err(|e| {
        AuthError::Discovery(format!("the registration endpoint {endpoint} is not a URL: {e}"))
    })?;
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| metadata.allows_auth_method(m))
        .unwrap_or("none");
    let redirect_uris: Vec<String> = redirect_uri.map(str::to_owned).into_iter().collect();
    let grant_types = match options.grant {
        Grant::AuthorizationCode(_) => json!(["authorization_code", "refresh_token"]),
        _ => json!(["client_credentials"]),
    };
    let body = json!({
        "client_name": options.client_name,
        "redirect_uris": redirect_uris,
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": options.application_type.as_str(),
    });
    let answer = fetcher.post_json(&url, &body, "application/json").await?;
    if !answer.status.is_success() {
        return Err(match answer.oauth_error() {
            AuthError::Denied { error, description } => AuthError::Registration(format!(
                "{endpoint} refused the registration: {error}{}",
                description.map(|d| format!(" ({d})")).unwrap_or_default()
            )),
            other => AuthError::Registration(format!("{endpoint}: {other}")),
        });
    }
    let registered: Registered = serde_json::from_slice(&answer.body)
        .map_err(|e| AuthError::Registration(format!("{endpoint} answered no client: {e}")))?;
    tracing::debug!(%endpoint, client_id = %registered.client_id, "registered a client");
    Ok(RegisteredClient {
        client_id: registered.client_id,
        auth_method: registered
            .token_endpoint_auth_method
            .or_else(|| if registered.client_secret.is_none() { Some("none".into()) } else { None }),
        client_secret: registered.client_secret,
        redirect_uris,
    })
}

#[cfg(test)]
mod tests {
    use super::same_redirect;

    #[test]
    fn a_loopback_redirect_matches_on_any_port_and_nothing_else_does() {
        assert!(same_redirect("http://127.0.0.1:4000/callback", "http://127.0.0.1:5123/callback"));
        assert!(same_redirect("https://app.example/cb", "https://app.example/cb"));
        assert!(!same_redirect("https://app.example:443/cb", "https://app.example:8443/cb"));
        assert!(!same_redirect("http://127.0.0.1:4000/callback", "http://127.0.0.1:4000/other"));
        assert!(!same_redirect("http://localhost:4000/callback", "http://127.0.0.1:4000/callback"));
    }
}
