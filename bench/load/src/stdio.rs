//! Load over stdio: the server is spawned with piped stdin/stdout, and one task keeps C
//! requests (distinct ids) in flight over that one pipe. Requests are written into one reused
//! buffer and answers read into another; writing and reading are polled together, so a server
//! that answers while it is still being written to never blocks on a full pipe.

use std::future::poll_fn;
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::report::{self, Measured};
use crate::workload::{self, Answer, Era};
use crate::{Plan, Run};

/// The longest a message from the server may be.
const MAX_LINE: usize = 64 << 20;

/// The spawned server and both ends of its pipes.
struct Pipe {
    /// The server process.
    child: Child,
    /// Its stdin.
    stdin: ChildStdin,
    /// Its stdout.
    stdout: ChildStdout,
    /// Bytes read from stdout; `start..filled` is not yet consumed.
    input: Vec<u8>,
    /// Where the unconsumed input starts.
    start: usize,
    /// How much of `input` holds data.
    filled: usize,
    /// How far `start..filled` has been searched for a newline.
    scanned: usize,
    /// Requests not yet written; `written..` is still to go.
    output: Vec<u8>,
    /// How much of `output` is written.
    written: usize,
}

impl Pipe {
    /// Writes what is pending while waiting for some input; how many bytes came (0 at EOF).
    async fn exchange(&mut self) -> std::io::Result<usize> {
        if self.input.len() - self.filled < 16 << 10 {
            if self.filled - self.start > MAX_LINE {
                return Err(std::io::Error::other("a message from the server is longer than 64 MiB"));
            }
            let grown = self.input.len() * 2;
            self.input.resize(grown, 0);
        }
        let read = poll_fn(|cx| self.poll_exchange(cx)).await?;
        if self.written == self.output.len() {
            self.output.clear();
            self.written = 0;
        }
        self.filled += read;
        Ok(read)
    }

    /// One poll of both directions.
    fn poll_exchange(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<usize>> {
        while self.written < self.output.len() {
            match Pin::new(&mut self.stdin).poll_write(cx, &self.output[self.written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => break,
            }
        }
        let mut buf = ReadBuf::new(&mut self.input[self.filled..]);
        match Pin::new(&mut self.stdout).poll_read(cx, &mut buf) {
            Poll::Ready(Ok(())) => Poll::Ready(Ok(buf.filled().len())),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The next complete line already read, as a range of `input`.
    fn next_line(&mut self) -> Option<(usize, usize)> {
        let newline = memchr::memchr(b'\n', &self.input[self.scanned..self.filled])?;
        let line = (self.start, self.scanned + newline);
        self.start = line.1 + 1;
        self.scanned = self.start;
        Some(line)
    }

    /// Marks the input searched and moves a partial line to the front.
    fn compact(&mut self) {
        self.scanned = self.filled;
        if self.start == self.filled {
            (self.start, self.filled, self.scanned) = (0, 0, 0);
        } else if self.start > 0 {
            self.input.copy_within(self.start..self.filled, 0);
            (self.filled, self.scanned) = (self.filled - self.start, self.scanned - self.start);
            self.start = 0;
        }
    }

    /// Sends one message and waits for the answer with id 0 (the handshake); its text.
    async fn round_trip(&mut self, message: &[u8]) -> Result<Vec<u8>, String> {
        self.send(message);
        loop {
            while let Some((from, to)) = self.next_line() {
                let line = &self.input[from..to];
                let answer = Answer::parse(line)?;
                if answer.method.is_none() && answer.number() == Some(0) {
                    return Ok(line.to_vec());
                }
            }
            self.compact();
            if self.exchange().await.map_err(broken)? == 0 {
                return Err("the server closed its stdout before answering".into());
            }
        }
    }

    /// Queues one message (a newline is added).
    fn send(&mut self, message: &[u8]) {
        self.output.extend_from_slice(message);
        self.output.push(b'\n');
    }

    /// Writes what is queued (for a notification, which gets no answer).
    async fn flush(&mut self) -> Result<(), String> {
        use tokio::io::AsyncWriteExt;
        self.stdin.write_all(&self.output[self.written..]).await.map_err(broken)?;
        self.output.clear();
        self.written = 0;
        Ok(())
    }
}

/// The error of a broken pipe.
fn broken(error: std::io::Error) -> String {
    format!("the server's pipe broke: {error}")
}

/// Runs the plan against `command`, spawned with its stdin and stdout piped (its stderr is
/// the generator's).
pub async fn run(command: &[String], plan: &Plan) -> Result<Run, String> {
    let (program, args) = command.split_first().ok_or("no server command after --")?;
    let started = Instant::now();
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{program} could not be started: {e}"))?;
    let pid = child.id();
    let mut pipe = Pipe {
        stdin: child.stdin.take().expect("stdin is piped"),
        stdout: child.stdout.take().expect("stdout is piped"),
        child,
        input: vec![0; 256 << 10],
        start: 0,
        filled: 0,
        scanned: 0,
        output: Vec::with_capacity(plan.workload.max_request_len() * plan.concurrency + 1024),
        written: 0,
    };
    let workload = &plan.workload;
    let answer = pipe.round_trip(&workload::handshake_request(workload.era)).await?;
    let cold_start = started.elapsed();
    let version = workload::check_handshake(workload.era, &answer)?;
    if workload.era == Era::Legacy {
        pipe.send(workload::INITIALIZED);
        pipe.flush().await?;
    }

    let mut ignored = report::histogram();
    let warmup = Duration::from_secs_f64(plan.max_seconds);
    load(&mut pipe, plan, 1, plan.warmup, warmup, &mut ignored).await?;
    let cpu_before = pid.and_then(report::cpu_time);
    let window_start = Instant::now();
    let mut latencies = report::histogram();
    let window = Duration::from_secs_f64(plan.max_seconds);
    load(&mut pipe, plan, 1 + plan.warmup, plan.requests, window, &mut latencies).await?;
    let window = window_start.elapsed();
    let cpu_after = pid.and_then(report::cpu_time);
    let peak_rss = pid.and_then(report::peak_rss);

    // Closing stdin ends a stdio server; give it a moment, then kill it.
    let Pipe { mut child, stdin, .. } = pipe;
    drop(stdin);
    if tokio::time::timeout(Duration::from_secs(10), child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
    let server_cpu = cpu_before.zip(cpu_after).map(|(before, after)| after.saturating_sub(before));
    Ok(Run {
        version,
        measured: Measured { latencies, window, server_cpu, peak_rss },
        cold_start: Some(cold_start),
    })
}

/// Sends `count` requests with ids `first..` keeping `plan.concurrency` in flight, until they
/// are all answered or `limit` has passed (then only the ones in flight are awaited), and
/// records each latency.
async fn load(
    pipe: &mut Pipe,
    plan: &Plan,
    first: u64,
    count: u64,
    limit: Duration,
    latencies: &mut hdrhistogram::Histogram<u64>,
) -> Result<(), String> {
    let concurrency = plan.concurrency.max(1);
    // Requests in flight, by id modulo the ring's size: (id, sent at). A slot still taken
    // holds back the next id that maps to it, so an answer that lags never loses its slot.
    let size = (concurrency * 2).next_power_of_two();
    let mask = (size - 1) as u64;
    let mut ring: Vec<Option<(u64, Instant)>> = vec![None; size];
    let (mut sent, mut in_flight) = (0u64, 0usize);
    let deadline = Instant::now() + limit;
    loop {
        let now = Instant::now();
        while in_flight < concurrency && sent < count && now < deadline {
            let id = first + sent;
            let slot = &mut ring[(id & mask) as usize];
            if slot.is_some() {
                break;
            }
            plan.workload.write_request(&mut pipe.output, id);
            pipe.output.push(b'\n');
            *slot = Some((id, now));
            sent += 1;
            in_flight += 1;
        }
        if in_flight == 0 {
            return Ok(());
        }
        if pipe.exchange().await.map_err(broken)? == 0 {
            return Err(format!("the server closed its stdout with {in_flight} requests unanswered"));
        }
        let arrived = Instant::now();
        while let Some((from, to)) = pipe.next_line() {
            let line = &pipe.input[from..to];
            let answer = Answer::parse(line)?;
            if answer.method.is_some() || answer.id.is_none() {
                continue; // a notification or request from the server
            }
            let taken = answer.number().and_then(|id| {
                let slot = &mut ring[(id & mask) as usize];
                slot.filter(|(sent_id, _)| *sent_id == id).and_then(|_| slot.take())
            });
            let Some((id, sent_at)) = taken else {
                let shown = String::from_utf8_lossy(&line[..line.len().min(400)]);
                return Err(format!("an answer to no request in flight: {shown}"));
            };
            plan.workload.check(id, &answer, line)?;
            report::record(latencies, arrived - sent_at);
            in_flight -= 1;
        }
        pipe.compact();
    }
}
