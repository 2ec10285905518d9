"""The official MCP Python SDK's `Client` drives modelctx's reference servers that mirror the
official ones (`modelctx serve time`; memory, fetch and git as they land) over stdio, in the legacy
and the 2026-07-28 eras, with the tool names and arguments a host configured for the official
server sends.

Run by scripts/interop.sh (pytest); MODELCTX_BIN names the binary (default target/debug/modelctx).
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client, StdioServerParameters

from test_client import REPO, REQUEST_TIMEOUT_S, TIMEOUT_S, server_binary, texts

MODES = ("legacy", "2026-07-28")


def serve(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=server_binary(), args=["serve", *args], cwd=str(REPO))


async def check_time(mode: str) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with Client(
            serve("time", "--local-timezone", "America/Chicago"), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S
        ) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert sorted(tools) == ["convert_time", "get_current_time"], sorted(tools)
            schema = tools["convert_time"].input_schema
            assert sorted(schema["required"]) == ["source_timezone", "target_timezone", "time"], schema
            assert "America/Chicago" in schema["properties"]["source_timezone"]["description"], schema

            now = await client.call_tool("get_current_time", {"timezone": "Europe/Berlin"})
            assert not now.is_error, now
            assert now.structured_content["timezone"] == "Europe/Berlin", now.structured_content
            assert json.loads(texts(now.content)[0]) == now.structured_content

            converted = await client.call_tool(
                "convert_time", {"source_timezone": "Asia/Kolkata", "time": "08:00", "target_timezone": "UTC"}
            )
            assert not converted.is_error, converted
            assert converted.structured_content["time_difference"] == "-5.5h", converted.structured_content
            assert converted.structured_content["target"]["datetime"].endswith("T02:30:00+00:00")

            unknown = await client.call_tool("get_current_time", {"timezone": "Atlantis/Capital"})
            assert unknown.is_error is True, unknown
            assert texts(unknown.content)[0].startswith("Invalid timezone: 'Atlantis/Capital'"), unknown.content


@pytest.mark.parametrize("mode", MODES)
def test_time(mode: str) -> None:
    """`modelctx serve time`: the official time server's tools, results and errors."""
    anyio.run(check_time, mode)
