// Interop checks: the official MCP TypeScript SDK v2 client (@modelcontextprotocol/client) drives
// `modelctx gateway` over Streamable HTTP, the gateway fronting three backends written with three
// different SDKs:
//   ours    `modelctx serve everything` (stdio)
//   npm     npm's @modelcontextprotocol/server-everything (TypeScript SDK v1, stdio)
//   python  ../python/peer_server.py (the Python SDK's MCPServer, stdio)
//
// One `modelctx gateway --config FILE --http 127.0.0.1:0` is started by the first test, with a
// config file written to a temporary directory, and stopped (with every process it started) after
// the last. One test per protocol-version negotiation mode of the SDK's `Client` (legacy and
// { pin: '2026-07-28' }), one subtest per check: connect, tools/list (every page) has each
// backend's tools under its prefix, and one echo tool per backend returns the expected text.
//
// Run with `node --test gateway.test.mjs` from this folder (scripts/interop.sh does).
//
// Environment:
//   MODELCTX_BIN          the gateway binary, also the `ours` backend (default: target/debug/modelctx)
//   MODELCTX_PEER_PYTHON  the Python with the pinned SDK, for peer_server.py (default:
//                         target/interop/venv/bin/python); relative paths are taken from the
//                         repository's root
//   INTEROP_WIRE_LOG      a directory: when set, the raw HTTP of each mode goes to
//                         typescript-gateway-<mode>.in/.out there (through a logging relay), and
//                         the gateway's stderr (its backends' too) to typescript-gateway-server.log

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { startHttpServer, wireTap } from './http-server.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url), 'utf8'),
).version;
const BINARY = resolve(REPO, process.env.MODELCTX_BIN || join('target', 'debug', 'modelctx'));
const PYTHON = resolve(REPO, process.env.MODELCTX_PEER_PYTHON || join('target', 'interop', 'venv', 'bin', 'python'));
const NPM_EVERYTHING = fileURLToPath(
  new URL('./node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
const PYTHON_PEER = join(REPO, 'interop', 'python', 'peer_server.py');

const GATEWAY_NAME = 'modelctx-gateway';
const MODE_TIMEOUT_MS = 90_000; // a whole mode: the gateway's start (first test), connect, every check, close
const REQUEST = { timeout: 15_000 }; // one request
const MAX_PAGES = 50; // tools/list pages followed before giving up

// `versionNegotiation.mode` of the SDK's Client -> the protocol version and era it must end up on.
const MODES = [
  { name: 'legacy', mode: 'legacy', version: '2025-11-25', era: 'legacy' },
  { name: 'pin-2026-07-28', mode: { pin: '2026-07-28' }, version: '2026-07-28', era: 'modern' },
];

const MESSAGE = 'hello through the gateway';
// backend (its name in the config, hence its tools' prefix) -> the tool called, its arguments, the
// texts it must return
const CALLS = {
  ours: { tool: 'echo', arguments: { message: MESSAGE }, texts: [MESSAGE] },
  npm: { tool: 'echo', arguments: { message: MESSAGE }, texts: [`Echo: ${MESSAGE}`] },
  python: { tool: 'echo', arguments: { message: MESSAGE }, texts: [MESSAGE] },
};

const gatewayConfig = () => ({
  mcpServers: {
    ours: { command: BINARY, args: ['serve', 'everything'] },
    npm: { command: process.execPath, args: [NPM_EVERYTHING, 'stdio'] },
    python: { command: PYTHON, args: [PYTHON_PEER] },
  },
});

const show = (value) => JSON.stringify(value);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const texts = (blocks) => blocks.filter((b) => b.type === 'text').map((b) => b.text);

// The processes below `pid` (children, theirs, ...), from `ps`; empty if it cannot tell.
function descendants(pid) {
  const out = spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
  const children = new Map();
  for (const line of out.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (Number.isInteger(child) && Number.isInteger(parent)) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found = [];
  const todo = [...(children.get(pid) ?? [])];
  while (todo.length) {
    const child = todo.pop();
    found.push(child);
    todo.push(...(children.get(child) ?? []));
  }
  return found;
}

// Those of `pids` still running (zombies, which wait only to be reaped, are not).
function alive(pids) {
  if (!pids.length) return [];
  const out = spawnSync('ps', ['-o', 'pid=,stat=', '-p', pids.join(',')], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length === 2 && !fields[1].startsWith('Z'))
    .map((fields) => Number(fields[0]));
}

// any HTTP answer (whatever its status) to a POSTed JSON-RPC ping within 2 s

// Starts `modelctx gateway --config FILE --http 127.0.0.1:0` with `config` in a temporary
// directory (as startHttpServer starts any server); resolves to { url, stop } once it answers.
// Its backends stay in this process's group too; stop() also SIGKILLs any process the gateway
// had started that is still running 5 s after it ended.
async function startGateway({ config, logPath }) {
  const dir = mkdtempSync(join(tmpdir(), 'modelctx-gateway-'));
  const configPath = join(dir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  // --no-auth: these tests are about the protocol; the run token is tested in Rust.
  const args = ['gateway', '--config', configPath, '--http', '127.0.0.1:0', '--no-auth'];
  const server = await startHttpServer({ binary: BINARY, cwd: REPO, logPath, args });
  const started = descendants(server.pid); // its backends (and `timeout`'s child)
  const stop = async () => {
    await server.stop();
    const deadline = Date.now() + 5000;
    while (alive(started).length && Date.now() < deadline) await sleep(100);
    const left = alive(started);
    if (left.length) {
      console.log(`note: processes ${show(left)} the gateway started outlived it by 5 s; killing them`);
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: server.url, stop };
}

// The gateway, started by the first test and stopped after the last test of this file.
let gateway;
const startedGateway = () => {
  assert.ok(existsSync(NPM_EVERYTHING), `missing ${NPM_EVERYTHING}: run npm ci here`);
  assert.ok(existsSync(PYTHON), `missing ${PYTHON}: set MODELCTX_PEER_PYTHON or run scripts/interop.sh`);
  const wireDir = process.env.INTEROP_WIRE_LOG;
  const logPath = wireDir && join(wireDir, 'typescript-gateway-server.log');
  return (gateway ??= startGateway({ config: gatewayConfig(), logPath }));
};
after(async () => {
  const started = await gateway?.catch(() => undefined);
  await started?.stop();
});

async function allToolNames(client) {
  const names = [];
  let cursor;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, REQUEST);
    names.push(...result.tools.map((t) => t.name));
    cursor = result.nextCursor;
    if (cursor === undefined) return names;
  }
  assert.fail(`tools/list still had a next cursor after ${MAX_PAGES} pages (${names.length} tools)`);
}

const wanted = Object.entries(CALLS).map(([backend, { tool }]) => `${backend}__${tool}`).sort();

for (const { name, mode, version, era } of MODES) {
  const title = `typescript @modelcontextprotocol/client ${SDK_VERSION} gateway (ours, npm, python) http mode=${name}`;
  test(title, { timeout: MODE_TIMEOUT_MS }, async (t) => {
    const { url } = await startedGateway();
    const wireDir = process.env.INTEROP_WIRE_LOG;
    const tap = wireDir ? await wireTap(url, join(wireDir, `typescript-gateway-${name}`)) : undefined;
    const transport = new StreamableHTTPClientTransport(tap?.url ?? new URL(url));
    const client = new Client({ name: 'modelctx-interop', version: '0.0.0' }, { versionNegotiation: { mode } });
    try {
      await client.connect(transport, REQUEST);
      const session = era === 'legacy' ? 'an Mcp-Session-Id session' : 'no session';
      await t.test(`connect: protocol ${version} (${era} era), server ${GATEWAY_NAME}, ${session}`, () => {
        assert.equal(client.getNegotiatedProtocolVersion(), version);
        assert.equal(client.getProtocolEra(), era);
        assert.equal(client.getServerVersion()?.name, GATEWAY_NAME, `server info ${show(client.getServerVersion())}`);
        if (era === 'legacy') assert.ok(transport.sessionId, 'initialize over HTTP gave no Mcp-Session-Id');
        else assert.equal(transport.sessionId, undefined, 'a modern connection got an Mcp-Session-Id');
      });
      await t.test(`tools/list has ${wanted.join(', ')}, every name under a backend's prefix`, async () => {
        const names = await allToolNames(client);
        const missing = wanted.filter((n) => !names.includes(n));
        assert.deepEqual(missing, [], `tools/list lacks ${show(missing)}; it gave ${show(names.sort())}`);
        const prefixes = Object.keys(CALLS).map((backend) => `${backend}__`);
        const stray = names.filter((n) => !prefixes.some((p) => n.startsWith(p)));
        assert.deepEqual(stray, [], `tools/list has names without a backend prefix: ${show(stray)}`);
      });
      for (const [backend, call] of Object.entries(CALLS)) {
        const tool = `${backend}__${call.tool}`;
        await t.test(`tools/call ${tool} returns ${show(call.texts)}`, async () => {
          const result = await client.callTool({ name: tool, arguments: call.arguments }, REQUEST);
          assert.ok(!result.isError, `${tool} failed: ${show(result)}`);
          assert.deepEqual(texts(result.content), call.texts, `${tool} gave ${show(result)}`);
        });
      }
      if (era === 'legacy') {
        await t.test('DELETE ends the Mcp-Session-Id session', async () => {
          await transport.terminateSession();
          assert.equal(transport.sessionId, undefined, 'the session id is still set after DELETE');
        });
      }
    } finally {
      await client.close();
      await tap?.close();
    }
  });
}
