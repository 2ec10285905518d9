//! Opening a page in the user's own browser, where neither the client nor a model can read
//! it (URL-mode elicitation, ELIC-21; OAuth authorization): the desktop's opener is run
//! directly with the URL as its one argument, never through a shell (SEC-03).

use std::net::IpAddr;
use std::process::{Command, Stdio};

use reqwest::Url;

/// Opens `url` with the desktop's opener (`open` on macOS, `xdg-open` elsewhere); `false`
/// when none could be started. Check the URL first ([`openable`]): this opens what it is
/// given.
pub fn open_in_browser(url: &Url) -> bool {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    Command::new(opener)
        .arg(url.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .is_ok()
}

/// Whether `url` is a page a person may be sent to: `https`, or `http` to a loopback host,
/// with no credentials in it. `javascript:`, `data:`, `file:` and every other scheme are
/// refused, with the reason.
pub fn openable(url: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|e| format!("{url:?} is not a URL: {e}"))?;
    match parsed.scheme() {
        "https" => {}
        "http" if is_loopback_host(&parsed) => {}
        "http" => return Err(format!("{url} is plain http to another machine; only https pages are opened")),
        other => return Err(format!("the {other}: scheme is not opened, only https")),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!("{url} carries credentials"));
    }
    Ok(parsed)
}

/// Whether `url`'s host is `localhost` or a loopback address.
pub(crate) fn is_loopback_host(url: &Url) -> bool {
    match url.host_str() {
        Some(host) => {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost") || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_pages_and_loopback_http_are_openable() {
        assert!(openable("https://example.com/verify?x=1").is_ok());
        assert!(openable("http://127.0.0.1:8080/cb").is_ok());
        assert!(openable("http://localhost/cb").is_ok());
        for url in [
            "http://example.com/",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
            "vbscript:x",
            "https://u:p@example.com/",
        ] {
            assert!(openable(url).is_err(), "{url} openable");
        }
    }
}
