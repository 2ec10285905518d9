"""The official MCP Python SDK's `Client` drives modelctx's reference servers that mirror the
official ones (`modelctx serve time`, `memory`, `fetch` and `git`) over stdio, in the legacy
and the 2026-07-28 eras, with the tool names and arguments a host configured for the official
server sends.

Run by scripts/interop.sh (pytest); MODELCTX_BIN names the binary (default target/debug/modelctx).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

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


async def check_memory(mode: str) -> None:
    with tempfile.TemporaryDirectory() as scratch, anyio.fail_after(TIMEOUT_S):
        db = str(Path(scratch) / "memory.db")
        async with Client(serve("memory", "--db", db), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            assert names == sorted(
                ["create_entities", "create_relations", "add_observations", "delete_entities",
                 "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"]
            ), names
            ada = {"name": "Ada", "entityType": "person", "observations": ["Wrote the first program"]}
            created = await client.call_tool("create_entities", {"entities": [ada]})
            assert not created.is_error and created.structured_content == {"entities": [ada]}, created
            relation = {"from": "Ada", "to": "Engine", "relationType": "programmed"}
            related = await client.call_tool("create_relations", {"relations": [relation]})
            assert related.structured_content == {"relations": [relation]}, related
            found = await client.call_tool("search_nodes", {"query": "first PROGRAM"})
            assert found.structured_content == {"entities": [ada], "relations": [relation]}, found
            assert json.loads(texts(found.content)[0]) == found.structured_content
            missing = await client.call_tool("add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]})
            assert missing.is_error is True and texts(missing.content) == ["Entity with name Nobody not found"], missing
            deleted = await client.call_tool("delete_entities", {"entityNames": ["Ada"]})
            assert deleted.structured_content == {"success": True, "message": "Entities deleted successfully"}, deleted
            graph = await client.call_tool("read_graph", {})
            assert graph.structured_content == {"entities": [], "relations": []}, graph


PAGE = b"""<!doctype html><html><head><title>Notes</title></head><body><article><h1>Notes</h1>
<p>Grace Hopper's team found a moth in the Mark II in 1947 and taped it into the log book, the first
actual case of a bug being found, as the entry says. The page is kept at the Smithsonian today.</p>
<p>The word was older than the moth: engineers had spoken of bugs in machines since Edison's time.</p>
</article></body></html>"""


class Site(BaseHTTPRequestHandler):
    """One page at /notes on 127.0.0.1; anything else is 404 (robots.txt too: fetching allowed)."""

    def do_GET(self) -> None:  # noqa: N802 (the handler's API)
        found = self.path == "/notes"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        body = PAGE if found else b"not here"
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


async def check_fetch(mode: str) -> None:
    site = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{site.server_address[1]}/notes"
    try:
        with anyio.fail_after(TIMEOUT_S):
            async with Client(
                serve("fetch", "--allow-private-addresses"), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S
            ) as client:
                tools = (await client.list_tools()).tools
                assert [tool.name for tool in tools] == ["fetch"], tools
                assert tools[0].input_schema["required"] == ["url"], tools[0].input_schema
                page = await client.call_tool("fetch", {"url": url, "max_length": 60})
                assert not page.is_error, page
                text = texts(page.content)[0]
                assert text.startswith(f"Contents of {url}:\n") and "start_index of 60" in text, text
                prompt = await client.get_prompt("fetch", {"url": url})
                assert "Grace Hopper" in prompt.messages[0].content.text, prompt
    finally:
        site.shutdown()


def git(repo: str, *args: str) -> None:
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


async def check_git(mode: str) -> None:
    with tempfile.TemporaryDirectory() as repo, anyio.fail_after(TIMEOUT_S):
        git(repo, "init", "--quiet", "--initial-branch=main")
        git(repo, "config", "user.name", "Grace")
        git(repo, "config", "user.email", "grace@example.com")
        Path(repo, "notes.txt").write_text("first\n")
        async with Client(serve("git", "--repo", repo), mode=mode, read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"git_status", "git_add", "git_commit", "git_log", "git_diff_unstaged"} <= names, names
            added = await client.call_tool("git_add", {"repo_path": repo, "files": ["notes.txt"]})
            assert texts(added.content) == ["Files staged successfully"], added
            committed = await client.call_tool("git_commit", {"repo_path": repo, "message": "Add notes"})
            assert texts(committed.content)[0].startswith("Changes committed successfully with hash "), committed
            log = await client.call_tool("git_log", {"repo_path": repo})
            assert "Message: Add notes" in texts(log.content)[0], log
            refused = await client.call_tool("git_status", {"repo_path": "/"})
            assert refused.is_error is True, refused


@pytest.mark.parametrize("mode", MODES)
def test_git(mode: str) -> None:
    """`modelctx serve git --repo DIR`: the official git server's tools on a fresh repository."""
    anyio.run(check_git, mode)


@pytest.mark.parametrize("mode", MODES)
def test_fetch(mode: str) -> None:
    """`modelctx serve fetch`: the official fetch server's tool and prompt, on a page on 127.0.0.1."""
    anyio.run(check_fetch, mode)


@pytest.mark.parametrize("mode", MODES)
def test_memory(mode: str) -> None:
    """`modelctx serve memory --db FILE`: the official memory server's tools over SQLite."""
    anyio.run(check_memory, mode)


@pytest.mark.parametrize("mode", MODES)
def test_time(mode: str) -> None:
    """`modelctx serve time`: the official time server's tools, results and errors."""
    anyio.run(check_time, mode)
