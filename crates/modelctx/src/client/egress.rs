//! Where an HTTP request on someone else's behalf may go: public addresses only, unless told
//! otherwise. A URL a model or a server supplies (a page to fetch, an authorization server's
//! metadata) must not reach this machine's loopback, the private network around it or a
//! cloud's metadata endpoint (server-side request forgery). The check is made on the
//! addresses a host name resolves to, at connection time (so a name that resolves to a
//! public address when checked and a private one when used cannot slip through), and on
//! literal addresses in the URL and in every redirect.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Which destinations requests may reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Egress {
    /// Public unicast addresses only (the default).
    #[default]
    PublicOnly,
    /// Any address: loopback and private networks too (for a test server or an intranet).
    Any,
}

impl Egress {
    /// Whether `url` may be requested as far as it shows: an `http` or `https` URL whose host,
    /// when it is a literal address, is allowed. A host name is checked when it is resolved.
    pub fn check_url(self, url: &Url) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{url}: only http and https URLs can be fetched"));
        }
        let Some(host) = url.host_str() else { return Err(format!("{url}: the URL names no host")) };
        // A literal address: `93.184.215.14`, or `[2606:4700::1111]` in brackets.
        let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>();
        match literal {
            Ok(ip) if !self.allows(ip) => Err(refused(&ip.to_string(), host)),
            _ => Ok(()),
        }
    }

    /// Whether `ip` may be reached.
    pub fn allows(self, ip: IpAddr) -> bool {
        self == Self::Any || is_public(ip)
    }

    /// A resolver for `reqwest::ClientBuilder::dns_resolver` that answers only the allowed
    /// addresses of a name, and fails when it has none.
    pub fn resolver(self) -> Arc<EgressResolver> {
        Arc::new(EgressResolver(self))
    }

    /// A client builder whose connections go only where this allows: host names resolved by
    /// [`Egress::resolver`], and no proxy taken from the environment (`HTTP_PROXY` and the
    /// like) unless every address is allowed — a proxy resolves the name itself, past the
    /// check. A proxy set on the builder afterwards is used (and decides where requests go).
    pub fn client_builder(self) -> reqwest::ClientBuilder {
        let builder = reqwest::Client::builder().dns_resolver(self.resolver());
        if self == Self::Any { builder } else { builder.no_proxy() }
    }

    /// A redirect policy that follows at most `limit` redirects, each to a URL
    /// [`Egress::check_url`] allows.
    pub fn redirects(self, limit: usize) -> reqwest::redirect::Policy {
        reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > limit {
                return attempt.error(format!("more than {limit} redirects"));
            }
            match self.check_url(attempt.url()) {
                Ok(()) => attempt.follow(),
                Err(why) => attempt.error(format!("a redirect was refused: {why}")),
            }
        })
    }
}

/// Why a destination is refused.
fn refused(address: &str, host: &str) -> String {
    let what = if host.trim_start_matches('[').trim_end_matches(']') == address {
        address.to_owned()
    } else {
        format!("{host} resolves to {address}, which")
    };
    format!(
        "{what} is a loopback, private, link-local or reserved address: only public addresses may be reached"
    )
}

/// The resolver of [`Egress::resolver`].
pub struct EgressResolver(Egress);

impl Resolve for EgressResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let egress = self.0;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = found.iter().copied().filter(|a| egress.allows(a.ip())).collect();
            match (allowed.is_empty(), found.first()) {
                (false, _) => Ok(Box::new(allowed.into_iter()) as Addrs),
                (true, Some(first)) => Err(refused(&first.ip().to_string(), &host).into()),
                (true, None) => Err(format!("{host} resolves to no address").into()),
            }
        })
    }
}

/// Whether `ip` is a public unicast address: not loopback, private (RFC 1918, unique local),
/// link-local (the cloud metadata endpoints among them), shared (CGNAT), unspecified,
/// broadcast, multicast, documentation, benchmarking or otherwise reserved. IPv4 addresses
/// embedded in IPv6 (mapped, NAT64, 6to4) are judged as the IPv4 address; local-use NAT64
/// (64:ff9b:1::/48) and Teredo (2001::/32, whose embedded addresses are obscured) are not
/// public.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || a >= 240
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (18..20).contains(&b)))
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits, 6to4 (2002::/16) in
    // the 32 after its prefix.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_public_v4(v4(segments[6], segments[7]));
    }
    if segments[0] == 0x2002 {
        return is_public_v4(v4(segments[1], segments[2]));
    }
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (segments[0] & 0xfe00) == 0xfc00
        || (segments[0] & 0xffc0) == 0xfe80
        || (segments[0] & 0xffc0) == 0xfec0
        || (segments[0] == 0x2001 && segments[1] == 0x0db8)
        || (segments[0] == 0x2001 && segments[1] == 0)
        || segments[..3] == [0x2001, 0x0002, 0]
        || segments[..3] == [0x64, 0xff9b, 1]
        || segments[..4] == [0x100, 0, 0, 0]
        || segments[..6] == [0, 0, 0, 0, 0, 0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_unicast_addresses_are_public() {
        let public = [
            "93.184.215.14",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:1.1.1.1",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2001:4860::8888",
        ];
        for ip in public {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
        let not_public = [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "192.0.0.8",
            "::1",
            "::",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "::127.0.0.1",
            "100::1",
            "64:ff9b:1::a00:1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
        ];
        for ip in not_public {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn urls_are_checked_for_their_scheme_and_literal_addresses() {
        let check = |url: &str| Egress::PublicOnly.check_url(&Url::parse(url).unwrap());
        assert!(check("https://example.com/").is_ok(), "names are checked when resolved");
        assert!(check("http://93.184.215.14/").is_ok());
        let metadata = check("http://169.254.169.254/latest/meta-data/").unwrap_err();
        assert!(metadata.starts_with("169.254.169.254 is a loopback, private"), "{metadata}");
        assert!(check("http://[::1]:8080/").is_err());
        assert!(check("file:///etc/passwd").unwrap_err().contains("only http and https"));
        assert!(Egress::Any.check_url(&Url::parse("http://127.0.0.1/").unwrap()).is_ok());
    }

    #[tokio::test]
    async fn names_that_resolve_to_private_addresses_are_refused() {
        let refused =
            Egress::PublicOnly.resolver().resolve("localhost".parse().unwrap()).await.err().unwrap();
        assert!(refused.to_string().starts_with("localhost resolves to "), "{refused}");
        let allowed = Egress::Any.resolver().resolve("localhost".parse().unwrap()).await.unwrap();
        assert!(allowed.into_iter().all(|a| a.ip().is_loopback()));
    }
}
