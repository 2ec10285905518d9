"""A server built with the official Python SDK (`mcp`), run over stdio, for modelctx's client to
drive (crates/modelctx-cli/tests/peer_servers.rs, run by scripts/interop.sh)."""

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


if __name__ == "__main__":
    server.run()
