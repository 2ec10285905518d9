//! Finding an MCP server's authorization server: its protected resource metadata, checked to
//! name this server, then the authorization server's metadata, checked to be that issuer's.

use reqwest::Url;

use super::AuthError;
use super::fetch::Fetcher;
use super::metadata::{self, ResourceMetadata, ServerMetadata};

/// Where tokens for a server come from.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The `resource` to name in authorization and token requests: the metadata's
    /// `resource` exactly as sent, or the server's canonical URI when it has none.
    pub resource: String,
    /// The server's protected resource metadata, when it has any.
    pub resource_metadata: Option<ResourceMetadata>,
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// Its metadata.
    pub metadata: ServerMetadata,
}

/// Discovers the authorization server of `server`, starting from the `resource_metadata` URL
/// of its challenge when it gave one (AUTH-10). A server with no resource metadata at all is
/// treated as the 2025-03-26 revision did: its origin is the authorization server, with the
/// default endpoints when that has no metadata either.
pub(crate) async fn discover(
    fetcher: &Fetcher,
    server: &Url,
    challenged: Option<&str>,
) -> Result<Discovered, AuthError> {
    let Some((found_at, resource_metadata)) = resource_metadata(fetcher, server, challenged).await? else {
        return origin_as_authorization_server(fetcher, server).await;
    };
    check_resource(&resource_metadata.resource, server, &found_at)?;
    let issuer = resource_metadata.authorization_servers.first().cloned().ok_or_else(|| {
        AuthError::Discovery(format!(
            "the resource metadata of {server} names no authorization server (AUTH-05)"
        ))
    })?;
    let metadata = server_metadata(fetcher, &issuer).await?.ok_or_else(|| {
        AuthError::Discovery(format!(
            "no metadata for the authorization server {issuer} at any well-known URL"
        ))
    })?;
    Ok(Discovered {
        resource: resource_metadata.resource.clone(),
        resource_metadata: Some(resource_metadata),
        issuer,
        metadata,
    })
}

/// The protected resource metadata and where it was found: at the challenge's URL when given,
/// else at the well-known URLs in order; `None` when there is none.
async fn resource_metadata(
    fetcher: &Fetcher,
    server: &Url,
    challenged: Option<&str>,
) -> Result<Option<(Url, ResourceMetadata)>, AuthError> {
    let candidates = match challenged {
        Some(url) => vec![Url::parse(url).map_err(|e| {
            AuthError::Discovery(format!("the challenge's resource_metadata {url} is not a URL: {e}"))
        })?],
        None => metadata::resource_metadata_urls(server),
    };
    for url in candidates {
        if let Some(found) =
            fetcher.get_document::<ResourceMetadata>(&url, "protected resource metadata").await?
        {
            return Ok(Some((url, found)));
        }
    }
    Ok(None)
}

/// RFC 9728 §3.3 and §7.3: the metadata must describe this server. Its `resource` is the
/// server itself, or — a server at `/mcp` under metadata for the whole origin — a resource of
/// the server's origin whose path the server's path starts with, segment by segment, and then
/// only when the document was found at that resource's own well-known URL, which only the one
/// who runs that resource publishes. A wider resource named anywhere else (a challenge may
/// point at any URL of the origin: a sibling path's server could name the bare origin) would
/// have the client ask for a token good for every server of the origin.
fn check_resource(resource: &str, server: &Url, found_at: &Url) -> Result<(), AuthError> {
    let mismatch = || {
        AuthError::Refused(format!(
            "the protected resource metadata is for {resource}, not for {server}: a token for it must not be asked for"
        ))
    };
    let named = Url::parse(resource).map_err(|_| mismatch())?;
    if named.origin() != server.origin() || named.fragment().is_some() {
        return Err(mismatch());
    }
    if metadata::canonical_resource(&named) == metadata::canonical_resource(server) {
        return Ok(());
    }
    let prefix: Vec<&str> = named.path().split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = server.path().split('/').filter(|s| !s.is_empty()).collect();
    if !path.starts_with(&prefix) {
        return Err(mismatch());
    }
    let own = metadata::resource_metadata_urls(&named).swap_remove(0);
    if *found_at == own {
        Ok(())
    } else {
        Err(AuthError::Refused(format!(
            "the protected resource metadata at {found_at} names {resource}, wider than {server}: only metadata at {own} may; a token for all of it must not be asked for"
        )))
    }
}

/// The authorization server's metadata from the first well-known URL that has it and whose
/// `issuer` is exactly `issuer` (AUTH-13): a document that names another issuer is not used.
async fn server_metadata(fetcher: &Fetcher, issuer: &str) -> Result<Option<ServerMetadata>, AuthError> {
    let issuer_url = Url::parse(issuer)
        .map_err(|e| AuthError::Discovery(format!("the issuer {issuer} is not a URL: {e}")))?;
    let mut mismatched = None;
    for url in metadata::server_metadata_urls(&issuer_url) {
        let Some(found) =
            fetcher.get_document::<ServerMetadata>(&url, "authorization server metadata").await?
        else {
            continue;
        };
        if found.issuer == issuer {
            return Ok(Some(found));
        }
        tracing::warn!(%url, expected = issuer, named = %found.issuer, "authorization server metadata for another issuer was ignored");
        mismatched = Some(found.issuer);
    }
    match mismatched {
        Some(named) => Err(AuthError::Refused(format!(
            "the metadata of the authorization server {issuer} names the issuer {named}: it is not used"
        ))),
        None => Ok(None),
    }
}

/// The 2025-03-26 way, for a server that publishes no resource metadata: the server's origin
/// is its authorization server, described by metadata at the origin or, lacking that, by the
/// default endpoints `/authorize`, `/token` and `/register`.
async fn origin_as_authorization_server(fetcher: &Fetcher, server: &Url) -> Result<Discovered, AuthError> {
    let origin = server.origin().ascii_serialization();
    let metadata = match server_metadata(fetcher, &origin).await? {
        Some(found) => found,
        None => ServerMetadata {
            issuer: origin.clone(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: Some(format!("{origin}/token")),
            registration_endpoint: Some(format!("{origin}/register")),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            token_endpoint_auth_methods_supported: Some(vec![
                "client_secret_basic".into(),
                "client_secret_post".into(),
                "none".into(),
            ]),
            ..ServerMetadata::default()
        },
    };
    tracing::debug!(%server, issuer = %metadata.issuer, "no protected resource metadata: the server's origin authorizes");
    Ok(Discovered {
        resource: metadata::canonical_resource(server),
        resource_metadata: None,
        issuer: origin,
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_must_name_this_server_or_a_path_above_it() {
        let server = Url::parse("http://localhost:3000/mcp").unwrap();
        let anywhere = Url::parse("http://localhost:3000/some/where").unwrap();
        let root = Url::parse("http://localhost:3000/.well-known/oauth-protected-resource").unwrap();
        assert!(check_resource("http://localhost:3000/mcp", &server, &anywhere).is_ok());
        assert!(check_resource("http://localhost:3000", &server, &root).is_ok());
        assert!(check_resource("http://localhost:3000/", &server, &root).is_ok());
        for other in [
            "https://evil.example.com/mcp",
            "http://localhost:3001/mcp",
            "http://localhost:3000/mcp/other",
            "http://localhost:3000/mc",
            "not a url",
        ] {
            assert!(check_resource(other, &server, &root).is_err(), "{other}");
        }
    }

    /// A server at `/tenant/a/mcp` whose challenge points at metadata it serves itself may not
    /// name the bare origin or `/tenant` (a token good for its siblings too); metadata at the
    /// wider resource's own well-known URL may.
    #[test]
    fn only_metadata_at_a_wider_resources_own_url_may_name_it() {
        let server = Url::parse("https://host.example/tenant/a/mcp").unwrap();
        let served_by_it = Url::parse("https://host.example/tenant/a/prm").unwrap();
        for wider in ["https://host.example", "https://host.example/tenant"] {
            let refused = check_resource(wider, &server, &served_by_it).unwrap_err();
            assert!(refused.to_string().contains("wider than"), "{refused}");
        }
        let at_root = Url::parse("https://host.example/.well-known/oauth-protected-resource").unwrap();
        assert!(check_resource("https://host.example", &server, &at_root).is_ok());
        let at_tenant =
            Url::parse("https://host.example/.well-known/oauth-protected-resource/tenant").unwrap();
        assert!(check_resource("https://host.example/tenant", &server, &at_tenant).is_ok());
        assert!(check_resource("https://host.example/tenant", &server, &at_root).is_err());
        let itself = Url::parse("https://HOST.example/tenant/a/mcp").unwrap();
        assert!(check_resource(itself.as_str(), &server, &served_by_it).is_ok());
    }
}
