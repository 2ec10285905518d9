"""A server built with the official Python SDK (`mcp`), for modelctx's client to drive
(crates/modelctx-cli/tests/peer_servers.rs, run by scripts/interop.sh).

    python peer_server.py           stdio
    python peer_server.py --http    Streamable HTTP (sessions) on a free 127.0.0.1 port; prints
                                    `listening on http://127.0.0.1:PORT/mcp` on stderr once the
                                    socket accepts connections
"""

import socket
import sys

import anyio
import uvicorn

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-peer")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def echo(message: str) -> str:
    """Echoes the message."""
    return message


@server.resource("peer://greeting")
def greeting() -> str:
    """A fixed greeting."""
    return "hello from python"


@server.prompt()
def review(code: str) -> str:
    """Asks for a review of the code."""
    return f"Please review: {code}"


async def serve_http() -> None:
    """Serves Streamable HTTP on a socket bound (and listening) before the address is printed."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    print(f"listening on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    if "--http" in sys.argv[1:]:
        anyio.run(serve_http)
    else:
        server.run()
