//! A server as a child process over its stdin and stdout. Its stderr goes to `tracing`. It
//! is shut down as the spec asks of a stdio client: stdin closed, then SIGTERM after a grace
//! period, then SIGKILL; and it is always waited for, so it leaves no zombie.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use futures::StreamExt as _;
use modelctx_protocol::jsonrpc::ParseLimits;
use tokio::process::{Child, ChildStderr, Command};
use tokio::sync::watch;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use super::ClientError;
use crate::transport::framing::{Line, Lines};

/// How to start a server: program, arguments, environment, working directory.
#[derive(Clone, Debug)]
pub struct StdioCommand {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
}

impl StdioCommand {
    /// Runs `program` (looked up in `PATH` unless it is a path).
    pub fn new(program: impl Into<OsString>) -> Self {
        Self { program: program.into(), args: Vec::new(), env: Vec::new(), cwd: None }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the server (the rest is inherited).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs the server in `dir`.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    fn describe(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }
}

/// A running server process, watched by a task that reaps it.
pub(crate) struct Process {
    /// Tripped to shut the server down; the writer closes stdin on it too.
    pub(crate) stop: CancellationToken,
    exited: watch::Receiver<Option<String>>,
    pid: Option<u32>,
}

/// The parts of a spawned server the client talks through.
pub(crate) struct Spawned {
    pub(crate) process: Process,
    pub(crate) stdin: tokio::process::ChildStdin,
    pub(crate) stdout: tokio::process::ChildStdout,
}

impl Process {
    /// Starts `command`; it is shut down (within `grace` per step) when `stop` trips.
    pub(crate) fn spawn(
        command: &StdioCommand,
        grace: Duration,
        limits: ParseLimits,
    ) -> Result<Spawned, ClientError> {
        let mut child = Command::new(&command.program);
        child
            .args(&command.args)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // The last resort if the runtime goes away before the watcher is done.
            .kill_on_drop(true);
        if let Some(dir) = &command.cwd {
            child.current_dir(dir);
        }
        let mut child =
            child.spawn().map_err(|e| ClientError::spawn(format!("{}: {e}", command.describe()), Some(e)))?;
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            return Err(ClientError::spawn(
                format!("{}: its standard streams are not piped", command.describe()),
                None,
            ));
        };
        let name = command.describe();
        tokio::spawn(log_stderr(stderr, name.clone(), limits));
        let stop = CancellationToken::new();
        let (report, exited) = watch::channel(None);
        let pid = child.id();
        tokio::spawn(watch_child(child, stop.clone(), grace, report, name));
        Ok(Spawned { process: Process { stop, exited, pid }, stdin, stdout })
    }

    /// The operating system's id of the server process.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How the server exited, once it has; waits at most `wait` for it.
    pub(crate) fn exited(&self, wait: Duration) -> impl Future<Output = Option<String>> + Send + 'static {
        let mut exited = self.exited.clone();
        async move { tokio::time::timeout(wait, exited.wait_for(Option::is_some)).await.ok()?.ok()?.clone() }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn log_stderr(stderr: ChildStderr, server: String, limits: ParseLimits) {
    // Bounded lines: a server writing without a newline cannot make the host buffer it all.
    let mut lines = FramedRead::new(stderr, Lines::new(limits));
    while let Some(Ok(line)) = lines.next().await {
        match line {
            Line::Bytes(line) => {
                let line = String::from_utf8_lossy(&line);
                tracing::info!(target: "modelctx::client::stderr", %server, "{line}");
            }
            Line::Oversize => tracing::info!(
                target: "modelctx::client::stderr",
                %server,
                "(a line over {} bytes, not shown)",
                limits.max_message_bytes
            ),
        }
    }
}

/// Waits for the child to exit, or for `stop`: then gives it `grace` to exit after its stdin
/// closed, sends SIGTERM and waits `grace` again, then kills it. Reports how it ended.
async fn watch_child(
    mut child: Child,
    stop: CancellationToken,
    grace: Duration,
    report: watch::Sender<Option<String>>,
    name: String,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        () = stop.cancelled() => shut_down(&mut child, grace).await,
    };
    let ended = match status {
        Ok(status) => describe_exit(&name, status),
        Err(e) => format!("the server {name} could not be waited for: {e}"),
    };
    let _ = report.send(Some(ended));
}

async fn shut_down(child: &mut Child, grace: Duration) -> std::io::Result<ExitStatus> {
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status;
    }
    terminate(child);
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return status;
    }
    child.kill().await?;
    child.wait().await
}

#[cfg(unix)]
fn terminate(child: &Child) {
    let pid = child.id().and_then(|pid| i32::try_from(pid).ok()).and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid
        && let Err(e) = rustix::process::kill_process(pid, rustix::process::Signal::TERM)
    {
        tracing::debug!(error = %e, "SIGTERM to the server failed");
    }
}

#[cfg(not(unix))]
fn terminate(_: &Child) {}

fn describe_exit(name: &str, status: ExitStatus) -> String {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("the server {name} was ended by signal {signal}");
    }
    match status.code() {
        Some(0) => format!("the server {name} exited"),
        Some(code) => format!("the server {name} exited with status {code}"),
        None => format!("the server {name} exited ({status})"),
    }
}
