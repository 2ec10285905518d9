"""pytest entry point: one test per (transport, connect mode) of the official MCP Python SDK's `Client`.

The checks themselves live in test_client.py (also runnable on its own); run with `-s` to see
one line per check. The HTTP tests share one `modelctx serve everything --http 127.0.0.1:0`,
started by the first of them and stopped after the last.
"""

from collections.abc import Iterator

import anyio
import pytest

from test_client import http_server, run_mode


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The URL of a `modelctx serve everything --http` server, stopped when the module is done."""
    with http_server() as url:
        yield url


def test_stdio_legacy_initialize() -> None:
    """stdio, mode='legacy': the `initialize` handshake, protocol 2025-11-25."""
    anyio.run(run_mode, "legacy", "stdio")


def test_stdio_modern_2026_07_28() -> None:
    """stdio, mode='2026-07-28': the stateless era pinned directly (per-request `_meta`, no handshake)."""
    anyio.run(run_mode, "2026-07-28", "stdio")


def test_stdio_auto_negotiation() -> None:
    """stdio, mode='auto' (the SDK default): `server/discover` probe, must settle on 2026-07-28."""
    anyio.run(run_mode, "auto", "stdio")


def test_http_legacy_initialize(http_url: str) -> None:
    """Streamable HTTP, mode='legacy': `initialize` opens an `Mcp-Session-Id` session, protocol 2025-11-25."""
    anyio.run(run_mode, "legacy", "http", http_url)


def test_http_modern_2026_07_28(http_url: str) -> None:
    """Streamable HTTP, mode='2026-07-28': sessionless POSTs, each with per-request `_meta`."""
    anyio.run(run_mode, "2026-07-28", "http", http_url)


def test_http_auto_negotiation(http_url: str) -> None:
    """Streamable HTTP, mode='auto': `server/discover` probe on the endpoint, must settle on 2026-07-28."""
    anyio.run(run_mode, "auto", "http", http_url)
