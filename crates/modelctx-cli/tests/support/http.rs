//! `modelctx serve … --http 127.0.0.1:0` as a child process: started, its address read from
//! its `listening on` line, killed and reaped when dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::WAIT;

/// A child process, killed (and reaped) when dropped, whatever the test did before.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Guard {
    /// Waits, at most [`WAIT`], for the process to exit.
    pub fn wait_bounded(&mut self, what: &str) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.0.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "{what}: the process did not exit in time");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A server listening on loopback.
pub struct HttpServer {
    /// Killed when the server is dropped.
    _process: Guard,
    /// Where it listens.
    pub address: SocketAddr,
    /// What it wrote on stderr before `listening on`.
    pub log: Vec<String>,
    /// Later stderr lines (kept flowing, so the pipe never fills).
    _stderr: Receiver<String>,
}

impl HttpServer {
    /// Starts `command` (a `modelctx serve … --http 127.0.0.1:0`) and waits, at most
    /// [`WAIT`], for its `listening on http://ADDRESS/mcp` line.
    pub fn start(mut command: Command) -> Self {
        let mut child =
            command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the server starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut process = Guard(child);
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + WAIT;
        let mut log = Vec::new();
        let address = loop {
            match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    match line.strip_prefix("listening on http://").and_then(|l| l.strip_suffix("/mcp")) {
                        Some(address) => break address.parse::<SocketAddr>().expect("a socket address"),
                        None => log.push(line),
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no `listening on` line in time: {log:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = process.wait_bounded("a server that closed stderr");
                    panic!("the server exited ({status}) before listening: {log:?}")
                }
            }
        };
        assert!(address.ip().is_loopback() && address.port() != 0, "{address}");
        Self { _process: process, address, log, _stderr: lines }
    }

    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }
}
