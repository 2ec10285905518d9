"""Interop checks: the official MCP Python SDK (`mcp` on PyPI) drives `modelctx gateway` over
Streamable HTTP, the gateway fronting three backends written with three different SDKs:

  ours    `modelctx serve everything` (stdio)
  npm     npm's `@modelcontextprotocol/server-everything` (TypeScript SDK v1, stdio)
  python  `peer_server.py` (this SDK's `MCPServer`, stdio)

One `modelctx gateway --config FILE --http 127.0.0.1:0` is started for the module, with a config
file written to a temporary directory; it is stopped (and every process it started with it) after
the last test. Each test connects in one mode of the SDK's `Client`, lists the tools (every page),
checks that each backend's tools are there under its prefix (`ours__echo`, `npm__echo`,
`python__echo`), and calls one echo tool per backend, checking the text that comes back.

    python -m pytest -s -v test_gateway.py

Environment:
    MODELCTX_BIN      the gateway binary, also the `ours` backend (default: target/debug/modelctx;
                      a relative path is taken from the repository's root)
    INTEROP_WIRE_LOG  a directory: when set, the raw HTTP of each mode goes to
                      python-gateway-<mode>.in/.out there (through a logging relay), and the
                      gateway's stderr (its backends' too) to python-gateway-server.log
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from importlib.metadata import version as package_version
from pathlib import Path

import anyio
import pytest
from http_server import HttpServer, WireTap
from mcp import Client

REPO = Path(__file__).resolve().parents[2]
NPM_EVERYTHING = REPO / "interop" / "typescript" / "node_modules" / "@modelcontextprotocol" / "server-everything"
PYTHON_PEER = REPO / "interop" / "python" / "peer_server.py"

GATEWAY_NAME = "modelctx-gateway"
TIMEOUT_S = 60  # for a whole mode: connect, every check, close
REQUEST_TIMEOUT_S = 15  # for one request
MAX_PAGES = 50  # tools/list pages followed before giving up

# Connect mode (the `mode=` argument of `mcp.Client`) -> the protocol version it must end up on.
MODES: dict[str, str] = {
    "legacy": "2025-11-25",
    "2026-07-28": "2026-07-28",
}

MESSAGE = "hello through the gateway"

# Backend (its name in the config, hence its tools' prefix) -> (the tool called, its arguments,
# the texts it must return).
CALLS: dict[str, tuple[str, dict[str, object], list[str]]] = {
    "ours": ("echo", {"message": MESSAGE}, [MESSAGE]),
    "npm": ("echo", {"message": MESSAGE}, [f"Echo: {MESSAGE}"]),
    "python": ("echo", {"message": MESSAGE}, [MESSAGE]),
}


def gateway_binary() -> str:
    """$MODELCTX_BIN (a relative path is taken from the repository's root), absolute."""
    return str((REPO / (os.environ.get("MODELCTX_BIN") or "target/debug/modelctx")).resolve())


def gateway_config() -> dict[str, object]:
    """The three backends, each spawned over stdio by the gateway, all paths absolute."""
    return {
        "mcpServers": {
            "ours": {"command": gateway_binary(), "args": ["serve", "everything"]},
            "npm": {"command": shutil.which("node") or "node", "args": [str(NPM_EVERYTHING / "dist" / "index.js"), "stdio"]},
            "python": {"command": sys.executable, "args": [str(PYTHON_PEER)]},
        }
    }


def descendants(pid: int) -> list[int]:
    """The processes below `pid` (children, theirs, ...), from `ps`; empty if it cannot tell."""
    try:
        out = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    children: dict[int, list[int]] = collections.defaultdict(list)
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
            children[int(fields[1])].append(int(fields[0]))
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return found


def alive(pids: list[int]) -> list[int]:
    """Those of `pids` still running (zombies, which wait only to be reaped, are not)."""
    if not pids:
        return []
    try:
        out = subprocess.run(
            ["ps", "-o", "pid=,stat=", "-p", ",".join(map(str, pids))], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [int(f[0]) for f in map(str.split, out.splitlines()) if len(f) == 2 and not f[1].startswith("Z")]


class GatewayServer(HttpServer):
    """`modelctx gateway --config FILE --http 127.0.0.1:0`; `with GatewayServer(config) as url: ...`.

    An `HttpServer` whose config file lives in a temporary directory. The gateway's backends stay
    in this process's group too; stop() also SIGKILLs any process the gateway had started that is
    still running 5 s after it ended.
    """

    def __init__(self, config: dict[str, object], log_path: Path | None = None) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="modelctx-gateway-")
        config_path = Path(self._dir.name) / "gateway.json"
        config_path.write_text(json.dumps(config, indent=2))
        # --no-auth: these tests are about the protocol; the run token is tested in Rust.
        args = ("gateway", "--config", str(config_path), "--http", "127.0.0.1:0", "--no-auth")
        super().__init__(gateway_binary(), cwd=str(REPO), log_path=log_path, args=args)

    def stop(self) -> None:
        started = descendants(self._proc.pid) if self._proc is not None else []  # its backends
        super().stop()
        deadline = time.monotonic() + 5
        while alive(started) and time.monotonic() < deadline:
            time.sleep(0.1)
        if left := alive(started):
            print(f"note: processes {left} the gateway started outlived it by 5 s; killing them")
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self._dir.cleanup()


def texts(blocks) -> list[str]:
    return [b.text for b in blocks if getattr(b, "type", None) == "text"]


async def all_tool_names(client: Client) -> list[str]:
    names: list[str] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        names.extend(t.name for t in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return names
    raise AssertionError(f"tools/list still had a next cursor after {MAX_PAGES} pages ({len(names)} tools)")


def check_listing(names: list[str]) -> str:
    """Every backend's tools are listed under its prefix, the called ones among them, and
    nothing else is."""
    wanted = sorted(f"{backend}__{tool}" for backend, (tool, _, _) in CALLS.items())
    missing = [name for name in wanted if name not in names]
    assert not missing, f"tools/list lacks {missing}; it gave {sorted(names)}"
    per_backend = {b: sum(n.startswith(f"{b}__") for n in names) for b in CALLS}
    stray = sorted(n for n in names if not any(n.startswith(f"{b}__") for b in CALLS))
    assert not stray, f"tools/list has names without a backend prefix: {stray}"
    counts = ", ".join(f"{b} {n}" for b, n in per_backend.items())
    return f"tools/list has {', '.join(wanted)} ({len(names)} tools: {counts})"


async def run_mode(mode: str, url: str) -> None:
    """Connects in `mode`, checks the listing and calls one tool per backend; raises
    AssertionError naming the failed checks."""
    expected = MODES[mode]
    tag = f"python mcp {package_version('mcp')} gateway mode={mode}"
    failed: list[str] = []

    def report(check: str, error: AssertionError | None, line: str) -> None:
        if error is None:
            print(f"ok   [{tag}] {line}")
        else:
            failed.append(check)
            print(f"FAIL [{tag}] {check}: {error}")

    with ExitStack() as stack, anyio.fail_after(TIMEOUT_S):
        server = url
        if wire_dir := os.environ.get("INTEROP_WIRE_LOG"):
            server = stack.enter_context(WireTap(url, str(Path(wire_dir) / f"python-gateway-{mode}")))
        async with Client(server, mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
            version = client.protocol_version
            info = client.server_info
            assert version == expected, f"[{tag}] negotiated {version!r}, expected {expected!r}"
            # A pinned 2026-07-28 client never asks, so it may not know the server's name.
            if info is not None or mode != "2026-07-28":
                assert info is not None and info.name == GATEWAY_NAME, f"[{tag}] server info {info!r}"
            print(f"ok   [{tag}] connect: protocol {version}, server {info.name if info else '(not asked)'}")

            try:
                names = await all_tool_names(client)
                report("tools/list", None, check_listing(names))
            except AssertionError as e:
                report("tools/list", e, "")
            for backend, (tool, arguments, expected_texts) in CALLS.items():
                name = f"{backend}__{tool}"
                try:
                    result = await client.call_tool(name, arguments)
                    assert not result.is_error, f"{name} failed: {result!r}"
                    got = texts(result.content)
                    assert got == expected_texts, f"{name} gave texts {got!r}, expected {expected_texts!r}: {result!r}"
                    report(f"tools/call {name}", None, f"tools/call {name} returns {expected_texts!r}")
                except AssertionError as e:
                    report(f"tools/call {name}", e, "")
                except Exception as e:  # noqa: BLE001 - a JSON-RPC error fails this check only
                    report(f"tools/call {name}", AssertionError(f"{name} raised {type(e).__name__}: {e}"), "")
    assert not failed, f"[{tag}] failed checks: {', '.join(failed)}"


@pytest.fixture(scope="module")
def gateway_url() -> Iterator[str]:
    """The URL of a `modelctx gateway --http` fronting ours, npm and python; stopped after the module."""
    assert (NPM_EVERYTHING / "dist" / "index.js").is_file(), f"missing {NPM_EVERYTHING}: run npm ci in interop/typescript"
    wire_dir = os.environ.get("INTEROP_WIRE_LOG")
    log = Path(wire_dir) / "python-gateway-server.log" if wire_dir else None
    with GatewayServer(gateway_config(), log_path=log) as url:
        yield url


def test_gateway_legacy_initialize(gateway_url: str) -> None:
    """mode='legacy': `initialize` opens an `Mcp-Session-Id` session with the gateway, protocol 2025-11-25."""
    anyio.run(run_mode, "legacy", gateway_url)


def test_gateway_modern_2026_07_28(gateway_url: str) -> None:
    """mode='2026-07-28': sessionless POSTs with per-request `_meta`, whatever era each backend speaks."""
    anyio.run(run_mode, "2026-07-28", gateway_url)
