//! `modelctx login URL` and `modelctx logout URL`: OAuth for HTTP servers, with the tokens
//! kept in one credentials file per user, keyed by authorization server, and used by every
//! command that takes `--url`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use futures::future::BoxFuture;
use modelctx::auth::{
    Assertion, AuthError, CredentialStore, FetchLimits, FetchObserver, Fetcher, FileStore, Grant,
    LoopbackBrowser, OAuth, OAuthOptions, Secret, SigningKey, StaticClient, UserAgent,
};
use modelctx::client::HttpAuth;
use modelctx::client::egress::{Egress, is_public};
use modelctx::host::AuthFor;
use modelctx::host::config::{HostConfig, Transport};
use reqwest::Url;

use crate::inspect::exit::Failure;

/// The variable naming the credentials file, instead of the default under the user's
/// configuration directory.
pub const CREDENTIALS_VAR: &str = "MODELCTX_CREDENTIALS";

/// Arguments of `modelctx login`.
#[derive(Args)]
pub struct LoginArgs {
    /// The server's Streamable HTTP endpoint (for example https://mcp.example.com/mcp).
    url: String,
    /// A client identifier registered with the authorization server beforehand (otherwise
    /// a client metadata document URL or dynamic registration is used).
    #[arg(long, value_name = "ID")]
    client_id: Option<String>,
    /// The secret of --client-id, when it is a confidential client.
    #[arg(
        long,
        value_name = "SECRET",
        env = "MODELCTX_CLIENT_SECRET",
        requires = "client_id",
        hide_env_values = true,
        group = "client_authentication"
    )]
    client_secret: Option<String>,
    /// The private key of --client-id, a PEM file (PKCS#8; PKCS#1 for RSA): the client
    /// authenticates with assertions it signs (`private_key_jwt`) instead of a secret.
    #[arg(long, value_name = "FILE", requires = "client_id", group = "client_authentication")]
    private_key: Option<PathBuf>,
    /// The JWS algorithm --private-key signs with (ES256, ES384, EdDSA, RS256, PS256, …).
    #[arg(long, value_name = "ALG", default_value = "ES256", requires = "private_key")]
    private_key_algorithm: String,
    /// The HTTPS URL of this client's metadata document, used as its client id where the
    /// authorization server supports client ID metadata documents.
    #[arg(long, value_name = "URL")]
    client_metadata_url: Option<String>,
    /// A scope to ask for besides those the server names (repeatable).
    #[arg(long = "scope", value_name = "SCOPE")]
    scopes: Vec<String>,
    /// Print the authorization URL instead of opening a browser.
    #[arg(long)]
    no_browser: bool,
    /// Seconds to wait for the browser to come back.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    wait: u64,
    /// Authorize this program itself, with no person and no browser: the client credentials
    /// grant for --client-id, authenticated by its secret (--client-secret, or
    /// MODELCTX_CLIENT_SECRET) or its key (--private-key). Such tokens have no refresh token:
    /// run this again when they expire.
    #[arg(long, requires = "client_authentication", conflicts_with = "assertion_file")]
    client_credentials: bool,
    /// Authorize as the workload the platform identifies, with no person and no browser: the
    /// JWT in FILE (a projected service-account token, say), presented as an RFC 7523 bearer
    /// grant (with --client-id when the authorization server wants one).
    #[arg(long, value_name = "FILE")]
    assertion_file: Option<PathBuf>,
}

/// Arguments of `modelctx logout`.
#[derive(Args)]
pub struct LogoutArgs {
    /// The server whose tokens to forget.
    url: String,
}

/// The credentials file: `$MODELCTX_CREDENTIALS`, else `$XDG_CONFIG_HOME/modelctx/
/// credentials.json`, else `~/.config/modelctx/credentials.json`.
pub fn credentials_path() -> Result<PathBuf, Failure> {
    if let Some(path) = std::env::var_os(CREDENTIALS_VAR) {
        return Ok(PathBuf::from(path));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .ok_or_else(|| Failure::Usage(format!("no HOME to keep credentials in: set {CREDENTIALS_VAR}")))?;
    Ok(config.join("modelctx").join("credentials.json"))
}

/// Where authorization requests may go for the server at `url`: a server on a public
/// address sends its client to public addresses only; one on this machine or the local
/// network (a server being developed, an intranet) may name an authorization server there.
pub(crate) fn egress_for(url: &Url) -> Egress {
    let local = match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => !is_public(ip.into()),
        Some(url::Host::Ipv6(ip)) => !is_public(ip.into()),
        None => false,
    };
    if local { Egress::Any } else { Egress::PublicOnly }
}

/// The OAuth client of `url` over the credentials file, getting its tokens by `grant`.
fn oauth(url: &str, grant: Grant, configure: impl FnOnce(&mut OAuthOptions)) -> Result<OAuth, Failure> {
    let parsed = Url::parse(url).map_err(|e| Failure::Usage(format!("{url}: {e}")))?;
    let mut options = OAuthOptions::new(grant);
    options.store = Arc::new(FileStore::new(credentials_path()?));
    options.client_name = "modelctx".into();
    options.fetch = FetchLimits { egress: egress_for(&parsed), ..FetchLimits::default() };
    configure(&mut options);
    OAuth::new(url, options).map_err(|e| Failure::Usage(e.to_string()))
}

/// A user agent for commands that cannot stop to ask: it refuses, naming the command that
/// authorizes.
#[derive(Debug)]
struct NeedsLogin(String);

impl UserAgent for NeedsLogin {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1/callback".into()
    }

    fn authorize<'a>(
        &'a self,
        _url: &'a Url,
        _fetcher: &'a Fetcher,
    ) -> BoxFuture<'a, Result<Url, AuthError>> {
        let why = format!("{} needs you to authorize: run `modelctx login {}`", self.0, self.0);
        Box::pin(async move { Err(AuthError::Refused(why)) })
    }
}

/// For a command with `--url`: the OAuth client of the tokens `modelctx login` kept for it,
/// or `None` when there are none.
pub async fn stored(url: &str) -> Result<Option<OAuth>, Failure> {
    let Ok(parsed) = Url::parse(url) else { return Ok(None) };
    let store = FileStore::new(credentials_path()?);
    let key = modelctx::auth::metadata::canonical_resource(&parsed);
    let kept = store.issuer_for(&key).await.map_err(|e| Failure::Usage(e.to_string()))?;
    match kept {
        Some(_) => oauth(url, needs_login(url), |_| {}).map(Some),
        None => Ok(None),
    }
}

/// The credentials `modelctx login` kept for the HTTP servers of `config` whose entries send no
/// `Authorization` header of their own, for [`modelctx::host::HostOptions::auth_for`]: each
/// backend of a host or gateway authorizes with its own tokens.
pub async fn stored_for(config: &HostConfig) -> Result<AuthFor, Failure> {
    let mut found: BTreeMap<String, Arc<dyn HttpAuth>> = BTreeMap::new();
    for (name, server) in &config.servers {
        let Transport::Http(http) = &server.transport else { continue };
        if http.headers.contains_key(reqwest::header::AUTHORIZATION) {
            continue;
        }
        if let Some(oauth) = stored(http.url.as_str()).await? {
            found.insert(name.clone(), Arc::new(oauth));
        }
    }
    Ok(AuthFor::new(move |name| found.get(name).cloned()))
}

/// Runs `modelctx login`.
pub fn run_login(args: &LoginArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    let outcome = crate::runtime::block_on(login(args)).and_then(|outcome| outcome);
    match outcome {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(failure) => failure.exit(),
    }
}

/// A grant that, for want of tokens, refuses and names the command that gets them.
fn needs_login(url: &str) -> Grant {
    Grant::AuthorizationCode(Arc::new(NeedsLogin(url.to_owned())))
}

/// How `modelctx login` gets tokens: a machine grant, or a person in a browser.
async fn login_grant(args: &LoginArgs) -> Result<Grant, Failure> {
    if args.client_credentials {
        return Ok(Grant::ClientCredentials);
    }
    if let Some(path) = &args.assertion_file {
        return Ok(Grant::JwtBearer(Assertion::File(path.clone())));
    }
    let browser = LoopbackBrowser::bind()
        .await
        .map_err(|e| Failure::Unreachable(format!("cannot listen for the browser's redirect: {e}")))?
        .open_browser(!args.no_browser)
        .wait(std::time::Duration::from_secs(args.wait));
    Ok(Grant::AuthorizationCode(Arc::new(browser)))
}

/// The signing key of `--private-key`, read from its file.
async fn signing_key(args: &LoginArgs) -> Result<Option<SigningKey>, Failure> {
    let Some(path) = &args.private_key else { return Ok(None) };
    let pem = tokio::fs::read_to_string(path)
        .await
        .map_err(|e| Failure::Usage(format!("cannot read the private key {}: {e}", path.display())))?;
    Ok(Some(SigningKey { pem: Secret::new(pem), algorithm: args.private_key_algorithm.clone() }))
}

async fn login(args: &LoginArgs) -> Result<String, Failure> {
    let signing_key = signing_key(args).await?;
    let oauth = oauth(&args.url, login_grant(args).await?, |options| {
        options.scopes = args.scopes.clone();
        options.client_metadata_url = args.client_metadata_url.clone();
        options.client = args.client_id.clone().map(|client_id| StaticClient {
            client_id,
            client_secret: args.client_secret.clone().map(Secret::new),
            signing_key,
            ..StaticClient::default()
        });
    })?;
    logged_in(&args.url, &oauth).await
}

/// Logs in to the server at `url` by `grant`, every HTTP exchange told to `observer` (the web
/// inspector shows them as steps), the tokens kept as `modelctx login` keeps them: what to tell
/// the person.
pub(crate) async fn log_in_from(url: &str, grant: Grant, observer: FetchObserver) -> Result<String, Failure> {
    let oauth = oauth(url, grant, |options| options.observer = Some(observer))?;
    logged_in(url, &oauth).await
}

/// Runs `oauth`'s login for the server at `url`: what to tell the person.
async fn logged_in(url: &str, oauth: &OAuth) -> Result<String, Failure> {
    match oauth.login().await {
        Ok(true) => {
            let scopes = oauth.scopes().await.unwrap_or_default();
            let path = credentials_path()?;
            Ok(if scopes.is_empty() {
                format!("Logged in to {url}; the tokens are kept in {}", path.display())
            } else {
                format!(
                    "Logged in to {url} with {}; the tokens are kept in {}",
                    scopes.join(" "),
                    path.display()
                )
            })
        }
        Ok(false) => Ok(format!("{url} asks for no authorization")),
        Err(e) => Err(Failure::Refused(e.to_string())),
    }
}

/// Runs `modelctx logout`.
pub fn run_logout(args: &LogoutArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    let forgotten = crate::runtime::block_on(async {
        let oauth = oauth(&args.url, needs_login(&args.url), |_| {})?;
        oauth.forget().await.map_err(|e| Failure::Usage(e.to_string()))
    });
    match forgotten.and_then(|outcome| outcome) {
        Ok(()) => {
            println!("Logged out of {}", args.url);
            ExitCode::SUCCESS
        }
        Err(failure) => failure.exit(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_server_may_name_a_local_authorization_server_and_a_public_one_may_not() {
        let egress = |url: &str| egress_for(&Url::parse(url).unwrap());
        assert_eq!(egress("http://127.0.0.1:8080/mcp"), Egress::Any);
        assert_eq!(egress("http://localhost:8080/mcp"), Egress::Any);
        assert_eq!(egress("http://10.1.2.3/mcp"), Egress::Any);
        assert_eq!(egress("https://mcp.example.com/mcp"), Egress::PublicOnly);
        assert_eq!(egress("https://93.184.215.14/mcp"), Egress::PublicOnly);
    }
}
