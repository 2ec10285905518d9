// A server built with the official TypeScript SDK v2 (`@modelcontextprotocol/server`), for modelctx's
// client to drive (crates/modelctx-cli/tests/peer_servers.rs, run by scripts/interop.sh). SDK v2
// serves both protocol eras from one factory.
//
//   node peer-server-v2.mjs           stdio (serveStdio)
//   node peer-server-v2.mjs --http    Streamable HTTP on a free 127.0.0.1 port (createMcpHandler
//                                     behind node:http); prints `listening on http://127.0.0.1:PORT/mcp`
//                                     on stderr once it accepts connections.
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function peer() {
  const server = new McpServer({ name: 'typescript-v2-peer', version: '2.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two integers.', inputSchema: z.object({ a: z.number().int(), b: z.number().int() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'echo',
    { description: 'Echoes the message.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  server.registerResource('greeting', 'peer://greeting', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'hello from typescript v2' }],
  }));
  server.registerPrompt(
    'review',
    { description: 'Asks for a review of the code.', argsSchema: z.object({ code: z.string() }) },
    ({ code }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Please review: ${code}` } }] }),
  );
  return server;
}

/** Serves the web-standard handler on node:http: each request becomes a fetch Request. */
function serveHttp() {
  const handler = createMcpHandler(peer);
  const http = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        signal: abort.signal,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, [...response.headers]);
      if (response.body) Readable.fromWeb(response.body).on('error', () => res.destroy()).pipe(res);
      else res.end();
    } catch (error) {
      console.error('peer-server-v2:', error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  http.listen(0, '127.0.0.1', () => {
    console.error(`listening on http://127.0.0.1:${http.address().port}/mcp`);
  });
}

if (process.argv.includes('--http')) serveHttp();
else serveStdio(peer);
