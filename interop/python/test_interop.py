"""pytest entry point: one test per connect mode of the official MCP Python SDK's `Client`.

The checks themselves live in test_client.py (also runnable on its own); run with `-s` to see
one line per check.
"""

import anyio

from test_client import run_mode


def test_legacy_initialize() -> None:
    """mode='legacy': the `initialize` handshake, protocol 2025-11-25."""
    anyio.run(run_mode, "legacy")


def test_modern_2026_07_28() -> None:
    """mode='2026-07-28': the stateless era pinned directly (per-request `_meta`, no handshake)."""
    anyio.run(run_mode, "2026-07-28")


def test_auto_negotiation() -> None:
    """mode='auto' (the SDK default): `server/discover` probe, must settle on 2026-07-28."""
    anyio.run(run_mode, "auto")
