//! Where an OAuth client keeps what it has been given: per authorization server (keyed by the
//! server's `issuer`, AUTH-14/AUTH-26) the client registration and the tokens per resource.
//! [`MemoryStore`] forgets at exit; [`FileStore`] keeps one JSON file readable by its owner
//! only.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::AuthError;

/// A string that must never reach a log: tokens, secrets, verifiers. Its `Debug` shows no
/// part of it; serialisation writes it whole (the store must keep it).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Keeps `value` as a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// A client's identity at one authorization server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredClient {
    /// The client identifier the server issued (or the metadata document URL, for CIMD).
    pub client_id: String,
    /// The secret of a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// How the client authenticates at the token endpoint: `none`, `client_secret_basic`,
    /// `client_secret_post` or `private_key_jwt`; `None` chooses from the server's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_method: Option<String>,
    /// The redirect URIs it was registered with (empty when not known).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirect_uris: Vec<String>,
}

/// The tokens granted for one resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSet {
    /// The access token.
    pub access_token: Secret,
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// The refresh token, when one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes asked for (or granted, when the server said).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The `resource` (RFC 8707) the tokens were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The DPoP key the tokens are bound to (base64url PKCS#8), when they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
}

impl TokenSet {
    /// Whether the access token expires within `margin` from now.
    pub fn expires_within(&self, margin: Duration) -> bool {
        self.expires_at.is_some_and(|at| unix_now() + margin.as_secs() >= at)
    }
}

/// Seconds since the Unix epoch, now.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default()
}

/// Everything kept for one authorization server.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuerCredentials {
    /// The client registration, when there is one (none for a CIMD client before use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<RegisteredClient>,
    /// Tokens per MCP server (its canonical URI).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tokens: BTreeMap<String, TokenSet>,
}

/// Keeps credentials per authorization server issuer. Implement it for a keyring or a
/// database; [`MemoryStore`] and [`FileStore`] come with the crate.
pub trait CredentialStore: Send + Sync + fmt::Debug {
    /// What is kept for `issuer`.
    fn get<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Result<Option<IssuerCredentials>, AuthError>>;

    /// Replaces what is kept for `issuer`.
    fn put<'a>(
        &'a self,
        issuer: &'a str,
        credentials: IssuerCredentials,
    ) -> BoxFuture<'a, Result<(), AuthError>>;

    /// Forgets `issuer`.
    fn remove<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Result<(), AuthError>>;

    /// The issuer that holds tokens for `resource`, so a client can use them before any
    /// server refuses it.
    fn issuer_for<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Result<Option<String>, AuthError>>;
}

/// All issuers' credentials, as one map.
type Book = BTreeMap<String, IssuerCredentials>;

fn issuer_in(book: &Book, resource: &str) -> Option<String> {
    book.iter()
        .find(|(_, credentials)| credentials.tokens.contains_key(resource))
        .map(|(issuer, _)| issuer.clone())
}

/// Credentials in this process's memory only.
#[derive(Debug, Default)]
pub struct MemoryStore(Mutex<Book>);

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Book) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl CredentialStore for MemoryStore {
    fn get<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Result<Option<IssuerCredentials>, AuthError>> {
        let found = self.with(|book| book.get(issuer).cloned());
        Box::pin(async move { Ok(found) })
    }

    fn put<'a>(
        &'a self,
        issuer: &'a str,
        credentials: IssuerCredentials,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        self.with(|book| book.insert(issuer.to_owned(), credentials));
        Box::pin(async { Ok(()) })
    }

    fn remove<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        self.with(|book| book.remove(issuer));
        Box::pin(async { Ok(()) })
    }

    fn issuer_for<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Result<Option<String>, AuthError>> {
        let found = self.with(|book| issuer_in(book, resource));
        Box::pin(async move { Ok(found) })
    }
}

/// Credentials in one JSON file, created readable and writable by its owner only (`0600`,
/// in a directory created `0700`), replaced whole on each change through a temporary file
/// (a fresh random name, created exclusively: never a file or link someone put there) and a
/// rename, so a crash never leaves half a file. A change reads, changes and writes the file
/// holding an exclusive lock on `FILE.lock` beside it, so that processes sharing the file (a
/// gateway refreshing tokens, `modelctx login`) never lose each other's changes — a refresh
/// token rotated by one and overwritten by the other's older copy would be lost for good.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
}

impl FileStore {
    /// A store kept at `path`; the file is made on the first change.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The file the store keeps.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn read(&self) -> Result<Book, AuthError> {
        let path = self.path.clone();
        blocking(move || read_book(&path)).await
    }

    async fn change(&self, f: impl FnOnce(&mut Book) + Send + 'static) -> Result<(), AuthError> {
        let path = self.path.clone();
        blocking(move || {
            let _one_writer = lock_beside(&path)?;
            let mut book = read_book(&path)?;
            f(&mut book);
            write_private(&path, &book)
        })
        .await
    }
}

/// Runs file I/O off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, AuthError> + Send + 'static,
) -> Result<T, AuthError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(AuthError::Store(format!("the credentials file task failed: {e}"))))
}

fn read_book(path: &Path) -> Result<Book, AuthError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| AuthError::Store(format!("{} is not a credentials file: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Book::new()),
        Err(e) => Err(AuthError::Store(format!("cannot read {}: {e}", path.display()))),
    }
}

fn io_failure(what: &str, path: &Path, e: &std::io::Error) -> AuthError {
    AuthError::Store(format!("cannot {what} {}: {e}", path.display()))
}

/// Options that create a file `0600`, and never through a symbolic link.
fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600).custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    options
}

/// Creates the directory of `path` (`0700`) when it is missing.
fn make_directory_of(path: &Path) -> Result<(), AuthError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(|e| io_failure("create the directory of", path, &e))?;
    }
    Ok(())
}

/// Takes the exclusive lock on `PATH.lock` (`flock`; on Unix), waiting for another process to
/// let it go; held until the returned file is dropped.
fn lock_beside(path: &Path) -> Result<std::fs::File, AuthError> {
    make_directory_of(path)?;
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    let file = private_file_options()
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| io_failure("open the lock", &lock_path, &e))?;
    #[cfg(unix)]
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| io_failure("lock", &lock_path, &e.into()))?;
    Ok(file)
}

fn write_private(path: &Path, book: &Book) -> Result<(), AuthError> {
    use std::io::Write;
    let text = serde_json::to_vec_pretty(book).map_err(|e| AuthError::Store(e.to_string()))?;
    make_directory_of(path)?;
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix)
        .map_err(|e| AuthError::Store(format!("no randomness for a file name: {e}")))?;
    let suffix: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let temporary = path.with_extension(format!("tmp-{suffix}"));
    let mut file = private_file_options()
        .create_new(true)
        .open(&temporary)
        .map_err(|e| io_failure("write", &temporary, &e))?;
    let written = file.write_all(&text).and_then(|()| file.sync_all());
    let replaced = written.and_then(|()| std::fs::rename(&temporary, path));
    replaced.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        io_failure("replace", path, &e)
    })
}

impl CredentialStore for FileStore {
    fn get<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Result<Option<IssuerCredentials>, AuthError>> {
        Box::pin(async move { Ok(self.read().await?.remove(issuer)) })
    }

    fn put<'a>(
        &'a self,
        issuer: &'a str,
        credentials: IssuerCredentials,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        let issuer = issuer.to_owned();
        Box::pin(self.change(move |book| {
            book.insert(issuer, credentials);
        }))
    }

    fn remove<'a>(&'a self, issuer: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        let issuer = issuer.to_owned();
        Box::pin(self.change(move |book| {
            book.remove(&issuer);
        }))
    }

    fn issuer_for<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Result<Option<String>, AuthError>> {
        Box::pin(async move { Ok(issuer_in(&self.read().await?, resource)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(token: &str) -> TokenSet {
        TokenSet {
            access_token: Secret::new(token),
            token_type: "Bearer".into(),
            refresh_token: Some(Secret::new("refresh-me")),
            expires_at: Some(unix_now() + 30),
            scopes: vec!["a".into()],
            resource: None,
            dpop_key: None,
        }
    }

    #[test]
    fn a_secret_never_shows_in_debug() {
        let set = tokens("hunter2");
        let shown = format!("{set:?}");
        assert!(!shown.contains("hunter2") && !shown.contains("refresh-me"), "{shown}");
    }

    #[test]
    fn expiry_is_judged_with_a_margin() {
        assert!(!tokens("t").expires_within(Duration::from_secs(10)));
        assert!(tokens("t").expires_within(Duration::from_secs(60)));
    }

    #[tokio::test]
    async fn auth_26_credentials_are_kept_per_issuer_in_a_file_only_its_owner_reads() {
        let dir = std::env::temp_dir()
            .join(format!("modelctx-store-{}", crate::auth::pkce::random_string().unwrap()));
        let store = FileStore::new(dir.join("nested/credentials.json"));
        assert_eq!(store.get("https://as.example").await.unwrap(), None);
        let mut kept = IssuerCredentials::default();
        kept.tokens.insert("https://mcp.example/mcp".into(), tokens("one"));
        store.put("https://as.example", kept.clone()).await.unwrap();
        store.put("https://other.example", IssuerCredentials::default()).await.unwrap();
        assert_eq!(store.get("https://as.example").await.unwrap(), Some(kept));
        assert_eq!(
            store.issuer_for("https://mcp.example/mcp").await.unwrap().as_deref(),
            Some("https://as.example")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let dir_mode = std::fs::metadata(store.path().parent().unwrap()).unwrap().permissions().mode();
            assert_eq!(dir_mode & 0o777, 0o700);
        }
        store.remove("https://as.example").await.unwrap();
        assert_eq!(store.issuer_for("https://mcp.example/mcp").await.unwrap(), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Two processes sharing the file (here two stores, each opening the file and its lock
    /// anew, as two processes do) change it at once: no change is lost, and no temporary file
    /// is left behind.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stores_sharing_a_file_lose_none_of_each_others_changes() {
        let dir = std::env::temp_dir()
            .join(format!("modelctx-store-{}", crate::auth::pkce::random_string().unwrap()));
        let path = dir.join("credentials.json");
        let (one, other) = (FileStore::new(&path), FileStore::new(&path));
        let issuers: Vec<String> = (0..40).map(|i| format!("https://as{i}.example")).collect();
        let puts = issuers.iter().enumerate().map(|(i, issuer)| {
            let store = if i % 2 == 0 { &one } else { &other };
            store.put(issuer, IssuerCredentials::default())
        });
        for put in futures::future::join_all(puts).await {
            put.unwrap();
        }
        for issuer in &issuers {
            assert!(one.get(issuer).await.unwrap().is_some(), "{issuer} was lost");
        }
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "the file and its lock only: {left:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A link put where the lock goes is not followed: the change fails, saying so, and what
    /// the link names is untouched.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_link_in_place_of_the_lock_is_not_followed() {
        let dir = std::env::temp_dir()
            .join(format!("modelctx-store-{}", crate::auth::pkce::random_string().unwrap()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("target");
        std::fs::write(&target, "theirs").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("credentials.json.lock")).unwrap();
        let store = FileStore::new(dir.join("credentials.json"));
        let refused = store.put("https://as.example", IssuerCredentials::default()).await.unwrap_err();
        assert!(refused.to_string().contains("cannot open the lock"), "{refused}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
