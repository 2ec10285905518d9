// The HTTP side of the interop checks: runs `modelctx serve everything --http 127.0.0.1:0` and,
// when asked, taps the bytes on the wire.
//
// startHttpServer() starts the server on a free loopback port, reads the bound address from its
// `listening on http://127.0.0.1:PORT/mcp` line, waits until a POSTed ping gets any HTTP answer, and
// returns { url, stop }; stop() sends SIGTERM (SIGKILL if it is still there 10 s later). Every wait
// is bounded. It is the approach of scripts/conformance.sh. The server runs under
// `timeout --foreground`, so that it goes away after LIFETIME_S even if this process is killed
// before it can stop it, and stays in this process's group (a signal to the group reaches it).
//
// wireTap(url, prefix) is a loopback TCP relay in front of the server: the raw HTTP the SDK sent is
// appended to PREFIX.in and what modelctx answered to PREFIX.out, with a `--- connection N ---` line
// whenever the bytes that follow come from another TCP connection. Returns { url, close }.

import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import { dirname } from 'node:path';

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:[0-9]+\/mcp)/;
const STARTUP_TIMEOUT_MS = 30_000; // to print the address and answer
const STOP_TIMEOUT_S = 10; // after SIGTERM the server lets in-flight requests finish for up to 5 s
const LIFETIME_S = 900; // the server's own bound, for when this process dies without stopping it

const show = (value) => JSON.stringify(value);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// resolves to false after `ms`, without keeping the process alive meanwhile
const expiry = (ms) => new Promise((resolve) => setTimeout(resolve, ms, false).unref());
const hasTimeout = spawnSync('timeout', ['--version'], { stdio: 'ignore' }).status === 0;

// any HTTP answer (whatever its status) to a POSTed JSON-RPC ping within 2 s
async function answers(url) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'interop-probe', method: 'ping' }),
      signal: AbortSignal.timeout(2000),
    });
    await response.body?.cancel().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

export async function startHttpServer({ binary, cwd, logPath, args = ['serve', 'everything', '--http', '127.0.0.1:0'] }) {
  const [command, argv] = hasTimeout
    ? ['timeout', ['--foreground', '-k', String(STOP_TIMEOUT_S), String(LIFETIME_S), binary, ...args]]
    : [binary, args];
  const what = `${binary} ${args.join(' ')}`;
  let log;
  if (logPath) {
    mkdirSync(dirname(logPath), { recursive: true });
    log = createWriteStream(logPath, { flags: 'a' });
  }
  const child = spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let url;
  let pending = '';
  let exit; // { code, signal } once it ended, or { error } if it could not start
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve((exit ??= { code, signal })));
    child.once('error', (error) => resolve((exit ??= { error: error.message })));
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      log?.write(chunk);
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop();
      for (const line of parts) {
        lines.push(line);
        if (lines.length > 15) lines.shift();
        url ??= LISTENING.exec(line)?.[1];
      }
    });
  }
  const tail = () =>
    lines.length
      ? `  last lines of its output:\n${lines.map((l) => `    ${l}`).join('\n')}`
      : '  (the server printed nothing)';

  // Kills on this process's exit, in case stop() is never called.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);

  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (!exit) {
        // `timeout` passes SIGTERM on to the server, and SIGKILLs it STOP_TIMEOUT_S later.
        child.kill('SIGTERM');
        const done = await Promise.race([exited, expiry((STOP_TIMEOUT_S + 5) * 1000)]);
        if (!done) {
          child.kill('SIGKILL');
          await Promise.race([exited, expiry(5000)]);
        }
        if (!(exit?.code === 0 || exit?.signal === 'SIGTERM')) {
          console.log(`note: the HTTP server ended with ${show(exit ?? 'no exit yet')} after SIGTERM\n${tail()}`);
        }
      }
      log?.end();
    })());

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (url && (await answers(url))) return { url, stop, pid: child.pid };
    if (exit) {
      await stop();
      throw new Error(`the server exited (${show(exit)}) before it answered: ${what}\n${tail()}`);
    }
    if (Date.now() >= deadline) {
      await stop();
      const problem = url
        ? `did not answer at ${url} within ${STARTUP_TIMEOUT_MS / 1000} s`
        : `did not print 'listening on http://127.0.0.1:PORT/mcp' within ${STARTUP_TIMEOUT_MS / 1000} s`;
      throw new Error(`the server ${problem}: ${what}\n${tail()}`);
    }
    await sleep(200);
  }
}

export async function wireTap(url, prefix) {
  const target = new URL(url);
  mkdirSync(dirname(prefix), { recursive: true });
  const last = { in: 0, out: 0 };
  const log = (direction, connection, chunk) => {
    const file = `${prefix}.${direction}`;
    if (last[direction] !== connection) {
      appendFileSync(file, `\n--- connection ${connection} ---\n`);
      last[direction] = connection;
    }
    appendFileSync(file, chunk);
  };
  const sockets = new Set();
  let connections = 0;
  const relay = net.createServer({ allowHalfOpen: true }, (client) => {
    const connection = ++connections;
    const upstream = net.connect({ host: target.hostname, port: Number(target.port), allowHalfOpen: true });
    for (const [src, dst, direction] of [[client, upstream, 'in'], [upstream, client, 'out']]) {
      sockets.add(src);
      src.on('data', (chunk) => {
        log(direction, connection, chunk);
        dst.write(chunk);
      });
      src.on('end', () => dst.end());
      src.on('error', () => dst.destroy());
      src.on('close', () => sockets.delete(src));
    }
  });
  await new Promise((resolve, reject) => {
    relay.once('error', reject);
    relay.listen(0, '127.0.0.1', resolve);
  });
  const proxied = new URL(url);
  proxied.port = String(relay.address().port);
  return {
    url: proxied,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        relay.close(() => resolve());
      }),
  };
}
