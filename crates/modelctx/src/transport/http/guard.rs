//! `Origin` and `Host` validation (HTTP-02, HTTP-03): loopback is always allowed, other
//! names only when configured. Shared with the HTTP+SSE transport (`transport::http_sse`).

use http::{HeaderValue, StatusCode};
use modelctx_protocol::jsonrpc::ErrorObject;

use super::body::error_response;
use super::{HttpOptions, McpBody};

/// Whether `host` (without port) names this machine.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    // The usual spellings first: parsing an address costs hundreds of instructions.
    matches!(host, "127.0.0.1" | "::1")
        || host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The host part of `host[:port]` or `[v6]:port`.
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority.rsplit_once(':').map_or(authority, |(host, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) { host } else { authority }
    })
}

/// A header that names a site the server does not accept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    /// `Origin` or `Host`.
    header: &'static str,
    /// What it said (`None`: not text).
    value: Option<String>,
}

/// Whether the request's `Origin` (if any) and `Host` are acceptable; the header that is not.
pub(crate) fn check(
    origin: Option<&HeaderValue>,
    host: Option<&HeaderValue>,
    options: &HttpOptions,
) -> Result<(), Refused> {
    match origin.map(HeaderValue::to_str) {
        None => {}
        Some(Err(_)) => return Err(Refused { header: "Origin", value: None }),
        Some(Ok(origin)) => {
            let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
            if !is_loopback(host_of(authority))
                && !options.allowed_origins.iter().any(|allowed| allowed == origin)
            {
                return Err(Refused { header: "Origin", value: Some(origin.to_owned()) });
            }
        }
    }
    match host.map(HeaderValue::to_str) {
        None => Ok(()),
        Some(Err(_)) => Err(Refused { header: "Host", value: None }),
        Some(Ok(host)) => {
            let name = host_of(host);
            if is_loopback(name)
                || options.allowed_hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(name))
            {
                Ok(())
            } else {
                Err(Refused { header: "Host", value: Some(name.to_owned()) })
            }
        }
    }
}

/// 403 with an id-less JSON-RPC error naming the header and the option that would allow it.
pub(crate) fn forbidden(refused: &Refused) -> http::Response<McpBody> {
    let message = match (&refused.value, refused.header) {
        (None, header) => {
            format!("the {header} header is not text; it is refused (DNS-rebinding protection)")
        }
        (Some(origin), "Origin") => format!(
            "the Origin {origin:?} is not one this server accepts (DNS-rebinding protection); if it is \
             yours, allow it with HttpOptions::allowed_origins (modelctx serve --allowed-origin {origin})"
        ),
        (Some(host), _) => format!(
            "the Host {host:?} is not a name this server accepts (DNS-rebinding protection); if it is \
             yours, allow it with HttpOptions::allowed_hosts (modelctx serve --allowed-host {host})"
        ),
    };
    error_response(StatusCode::FORBIDDEN.as_u16(), None, ErrorObject::invalid_request(message))
}

#[cfg(test)]
mod tests {
    use http::{HeaderMap, header};

    use super::*;

    fn check_map(headers: &HeaderMap, options: &HttpOptions) -> Result<(), Refused> {
        check(headers.get(header::ORIGIN), headers.get(header::HOST), options)
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs.iter().map(|(k, v)| (http::HeaderName::from_static(k), HeaderValue::from_static(v))).collect()
    }

    #[test]
    fn http_02_loopback_is_allowed_and_others_are_not() {
        let options = HttpOptions::default();
        for ok in [
            headers(&[("host", "127.0.0.1:8080")]),
            headers(&[("host", "localhost"), ("origin", "http://localhost:3000")]),
            headers(&[("host", "[::1]:80"), ("origin", "http://[::1]:5173")]),
            headers(&[]),
        ] {
            assert!(check_map(&ok, &options).is_ok(), "{ok:?}");
        }
        for bad in [
            headers(&[("host", "evil.example.com")]),
            headers(&[("host", "127.0.0.1:8080"), ("origin", "https://evil.example.com")]),
            headers(&[("host", "localhost.evil.com:80")]),
        ] {
            assert!(check_map(&bad, &options).is_err(), "{bad:?}");
        }
        let configured = HttpOptions {
            allowed_origins: vec!["https://app.example.com".into()],
            allowed_hosts: vec!["mcp.example.com".into()],
            ..HttpOptions::default()
        };
        assert!(
            check_map(
                &headers(&[("host", "mcp.example.com"), ("origin", "https://app.example.com")]),
                &configured
            )
            .is_ok()
        );
        let refused = check_map(&headers(&[("host", "mcp.example.com:443")]), &options).unwrap_err();
        let body = forbidden(&refused);
        assert_eq!(body.status(), 403);
        assert_eq!(refused, Refused { header: "Host", value: Some("mcp.example.com".into()) });
    }
}
