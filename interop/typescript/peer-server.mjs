// A server built with the official TypeScript SDK v1 (`@modelcontextprotocol/sdk`), over stdio, for
// modelctx's client to drive (crates/modelctx-cli/tests/peer_servers.rs, run by scripts/interop.sh).
// SDK v1 speaks only the `initialize` era, so the client must fall back to it.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "typescript-peer", version: "1.0.0" });

server.registerTool(
  "add",
  { description: "Adds two integers.", inputSchema: { a: z.number().int(), b: z.number().int() } },
  async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
);
server.registerTool(
  "echo",
  { description: "Echoes the message.", inputSchema: { message: z.string() } },
  async ({ message }) => ({ content: [{ type: "text", text: message }] }),
);
server.registerResource("greeting", "peer://greeting", { mimeType: "text/plain" }, async (uri) => ({
  contents: [{ uri: uri.href, text: "hello from typescript" }],
}));
server.registerPrompt(
  "review",
  { description: "Asks for a review of the code.", argsSchema: { code: z.string() } },
  ({ code }) => ({ messages: [{ role: "user", content: { type: "text", text: `Please review: ${code}` } }] }),
);

await server.connect(new StdioServerTransport());
