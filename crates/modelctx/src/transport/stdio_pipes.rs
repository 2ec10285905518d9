//! stdin and stdout as non-blocking pipes on the runtime's own reactor (epoll, through
//! `tokio::net::unix::pipe`): each read and write is one system call on the thread that runs
//! the connection, with no thread and no hand-off between. At one request in flight the
//! hand-offs of `stdio_threads` (a thread wakes the runtime, the runtime wakes a thread) were
//! most of a round trip.
//!
//! Used when stdin and stdout are both pipes, as a host that spawns a server makes them.
//! Anything else keeps the threads: epoll cannot wait on a regular file, and `O_NONBLOCK`
//! belongs to the open file — a terminal left non-blocking would break the shell after the
//! server exits, and a stdout shared with stderr (`2>&1`) would make log writes fail with
//! `EAGAIN`. The flags are put back when the pipes are dropped.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use rustix::fs::{FileType, OFlags, Stat, fcntl_getfl, fcntl_setfl, fstat};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::unix::pipe;

/// stdin, non-blocking, read by the runtime.
pub(crate) struct StdinPipe {
    pipe: pipe::Receiver,
    /// The file status flags it had, put back on drop.
    flags: OFlags,
}

/// stdout, non-blocking, written by the runtime.
pub(crate) struct StdoutPipe {
    pipe: pipe::Sender,
    /// The file status flags it had, put back on drop.
    flags: OFlags,
}

/// What `fd` is, when it is a pipe.
fn pipe_stat(fd: BorrowedFd<'_>) -> Option<Stat> {
    let stat = fstat(fd).ok()?;
    (FileType::from_raw_mode(stat.st_mode) == FileType::Fifo).then_some(stat)
}

/// stdin and stdout as pipes, when both are pipes and stdout is not also stderr; `None`
/// otherwise (or when the runtime cannot take them), for the threads.
pub(crate) fn stdio() -> Option<(StdinPipe, StdoutPipe)> {
    let (stdin, stdout, stderr) = (io::stdin(), io::stdout(), io::stderr());
    pipe_stat(stdin.as_fd())?;
    let out = pipe_stat(stdout.as_fd())?;
    if fstat(stderr.as_fd()).is_ok_and(|err| (err.st_dev, err.st_ino) == (out.st_dev, out.st_ino)) {
        return None;
    }
    let input_flags = fcntl_getfl(stdin.as_fd()).ok()?;
    let output_flags = fcntl_getfl(stdout.as_fd()).ok()?;
    // Each pipe owns a duplicate of the descriptor: the process's own fd 0 and 1 stay open.
    let input = pipe::Receiver::from_owned_fd(rustix::io::dup(stdin.as_fd()).ok()?);
    let input = StdinPipe { pipe: restored_on_error(input, stdin.as_fd(), input_flags)?, flags: input_flags };
    let output = pipe::Sender::from_owned_fd(rustix::io::dup(stdout.as_fd()).ok()?);
    let output =
        StdoutPipe { pipe: restored_on_error(output, stdout.as_fd(), output_flags)?, flags: output_flags };
    Some((input, output))
}

/// The pipe, or `None` with `fd`'s flags put back when it could not be made.
fn restored_on_error<P>(made: io::Result<P>, fd: BorrowedFd<'_>, flags: OFlags) -> Option<P> {
    made.inspect_err(|e| {
        tracing::debug!(error = %e, "stdio stays on threads");
        let _ = fcntl_setfl(fd, flags);
    })
    .ok()
}

impl Drop for StdinPipe {
    fn drop(&mut self) {
        let _ = fcntl_setfl(self.pipe.as_fd(), self.flags);
    }
}

impl Drop for StdoutPipe {
    fn drop(&mut self) {
        let _ = fcntl_setfl(self.pipe.as_fd(), self.flags);
    }
}

impl AsyncRead for StdinPipe {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().pipe).poll_read(cx, buf)
    }
}

impl AsyncWrite for StdoutPipe {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().pipe).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().pipe).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().pipe).poll_shutdown(cx)
    }
}
