"""The HTTP side of the interop checks: runs `modelctx serve everything --http 127.0.0.1:0` and,
when asked, taps the bytes on the wire.

`HttpServer` starts the server on a free loopback port, reads the bound address from its
`listening on http://127.0.0.1:PORT/mcp` line, waits until a POSTed ping gets any HTTP answer, and
stops it with SIGTERM (SIGKILL if it is still there 10 s later); every wait is bounded. It is the
approach of scripts/conformance.sh. The server runs under `timeout --foreground`, so that it goes
away after `LIFETIME_S` even if this process is killed before it can stop it, and stays in this
process's group (a signal to the group reaches it).

`WireTap` is a loopback TCP relay in front of the server: the raw HTTP the SDK sent is appended
to PREFIX.in and what modelctx answered to PREFIX.out, with a `--- connection N ---` line whenever
the bytes that follow come from another TCP connection (the SDK keeps several open: one per POST
stream, the legacy GET stream).
"""

from __future__ import annotations

import collections
import json
import re
import shutil
import signal
import socket
import socketserver
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:[0-9]+/mcp)")
STARTUP_TIMEOUT_S = 30  # to print the address and answer
STOP_TIMEOUT_S = 10  # after SIGTERM the server lets in-flight requests finish for up to 5 s
LIFETIME_S = 900  # the server's own bound, for when this process dies without stopping it


def answers(url: str) -> bool:
    """Whether a POSTed JSON-RPC ping gets any HTTP answer (whatever its status) within 2 s."""
    body = json.dumps({"jsonrpc": "2.0", "id": "interop-probe", "method": "ping"}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
    )
    try:
        with urllib.request.urlopen(request, timeout=2):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


class HttpServer:
    """`modelctx serve everything --http 127.0.0.1:0` (or `binary ARGS…`); `with HttpServer(binary) as url: ...`."""

    def __init__(
        self,
        binary: str,
        cwd: str,
        log_path: Path | None = None,
        args: tuple[str, ...] = ("serve", "everything", "--http", "127.0.0.1:0"),
    ) -> None:
        self.binary = binary
        self.cwd = cwd
        self.log_path = log_path
        self.args = args
        self.url: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lines: collections.deque[str] = collections.deque(maxlen=15)
        self._found = threading.Event()

    def _read_output(self, stream, log) -> None:
        for raw in stream:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self._lines.append(line)
            if log is not None:
                log.write(raw)
                log.flush()
            if self.url is None and (m := LISTENING.search(line)):
                self.url = m.group(1)
                self._found.set()
        if log is not None:
            log.close()

    def _tail(self) -> str:
        if not self._lines:
            return "  (the server printed nothing)"
        return "  last lines of its output:\n" + "\n".join(f"    {line}" for line in self._lines)

    def start(self) -> str:
        command = [self.binary, *self.args]
        what = " ".join(command)
        if shutil.which("timeout"):
            command = ["timeout", "--foreground", "-k", str(STOP_TIMEOUT_S), str(LIFETIME_S), *command]
        log = None
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(self.log_path, "ab")  # noqa: SIM115 - closed by the reader thread
        self._proc = subprocess.Popen(
            command, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self._reader = threading.Thread(target=self._read_output, args=(self._proc.stdout, log), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if self.url is not None and answers(self.url):
                return self.url
            status = self._proc.poll()
            if status is not None:
                self._reader.join(2)
                raise RuntimeError(f"the server exited (status {status}) before it answered: {what}\n{self._tail()}")
            if time.monotonic() >= deadline:
                self.stop()
                if self.url is None:
                    problem = f"did not print 'listening on http://127.0.0.1:PORT/mcp' within {STARTUP_TIMEOUT_S} s"
                else:
                    problem = f"did not answer at {self.url} within {STARTUP_TIMEOUT_S} s"
                raise RuntimeError(f"the server {problem}: {what}\n{self._tail()}")
            self._found.wait(0.2)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            # `timeout` passes SIGTERM on to the server, and SIGKILLs it STOP_TIMEOUT_S later.
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT_S + 5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
            if proc.returncode not in (0, -signal.SIGTERM):
                print(f"note: the HTTP server ended with status {proc.returncode} after SIGTERM\n{self._tail()}")
        if self._reader is not None:
            self._reader.join(5)

    def __enter__(self) -> str:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


class WireTap:
    """A loopback TCP relay to `url`'s server that logs both directions; `with WireTap(url, prefix) as url`."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        target = urlsplit(url)
        self._upstream = (target.hostname or "127.0.0.1", target.port or 80)
        self._lock = threading.Lock()
        self._last = {"in": 0, "out": 0}
        self._sockets: set[socket.socket] = set()
        self._server: socketserver.ThreadingTCPServer | None = None
        self._thread: threading.Thread | None = None

    def _log(self, direction: str, connection: int, data: bytes) -> None:
        with self._lock:
            with open(f"{self.prefix}.{direction}", "ab") as f:
                if self._last[direction] != connection:
                    f.write(f"\n--- connection {connection} ---\n".encode())
                    self._last[direction] = connection
                f.write(data)

    def _pump(self, src: socket.socket, dst: socket.socket, direction: str, connection: int) -> None:
        try:
            while data := src.recv(65536):
                self._log(direction, connection, data)
                dst.sendall(data)
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def __enter__(self) -> str:
        tap = self
        counter = iter(range(1, 1 << 30))

        class Relay(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                connection = next(counter)
                client = self.request
                try:
                    upstream = socket.create_connection(tap._upstream, timeout=5)
                except OSError:
                    return
                upstream.settimeout(None)
                with tap._lock:
                    tap._sockets.update((client, upstream))
                back = threading.Thread(target=tap._pump, args=(upstream, client, "out", connection), daemon=True)
                back.start()
                tap._pump(client, upstream, "in", connection)
                back.join()
                upstream.close()
                with tap._lock:
                    tap._sockets.difference_update((client, upstream))

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True

        Path(self.prefix).parent.mkdir(parents=True, exist_ok=True)
        self._server = Server(("127.0.0.1", 0), Relay)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        port = self._server.server_address[1]
        return urlsplit(self.url)._replace(netloc=f"127.0.0.1:{port}").geturl()

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self._thread.join(5)
