//! `Origin` and `Host` validation (HTTP-02, HTTP-03): loopback is always allowed, other
//! names only when configured. Shared with the HTTP+SSE transport (`transport::http_sse`).

use http::{HeaderMap, StatusCode, header};
use modelctx_protocol::jsonrpc::ErrorObject;

use super::body::error_response;
use super::{HttpOptions, McpBody};

/// Whether `host` (without port) names this machine.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
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

/// Whether the request's `Origin` (if any) and `Host` are acceptable.
pub(crate) fn allowed(headers: &HeaderMap, options: &HttpOptions) -> bool {
    let origin_ok = match headers.get(header::ORIGIN).map(|v| v.to_str()) {
        None => true,
        Some(Err(_)) => false,
        Some(Ok(origin)) => {
            let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest);
            is_loopback(host_of(authority)) || options.allowed_origins.iter().any(|allowed| allowed == origin)
        }
    };
    let host_ok = match headers.get(header::HOST).map(|v| v.to_str()) {
        None => true,
        Some(Err(_)) => false,
        Some(Ok(host)) => {
            let name = host_of(host);
            is_loopback(name)
                || options.allowed_hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(name))
        }
    };
    origin_ok && host_ok
}

/// 403 with an id-less JSON-RPC error naming the fix.
pub(crate) fn forbidden() -> http::Response<McpBody> {
    error_response(
        StatusCode::FORBIDDEN.as_u16(),
        None,
        ErrorObject::invalid_request(
            "the Origin or Host header names a site this server does not accept (DNS-rebinding \
             protection); add it to the server's allowed origins or hosts if it is yours",
        ),
    )
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

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
            assert!(allowed(&ok, &options), "{ok:?}");
        }
        for bad in [
            headers(&[("host", "evil.example.com")]),
            headers(&[("host", "127.0.0.1:8080"), ("origin", "https://evil.example.com")]),
            headers(&[("host", "localhost.evil.com:80")]),
        ] {
            assert!(!allowed(&bad, &options), "{bad:?}");
        }
        let configured = HttpOptions {
            allowed_origins: vec!["https://app.example.com".into()],
            allowed_hosts: vec!["mcp.example.com".into()],
            ..HttpOptions::default()
        };
        assert!(allowed(
            &headers(&[("host", "mcp.example.com"), ("origin", "https://app.example.com")]),
            &configured
        ));
    }
}
