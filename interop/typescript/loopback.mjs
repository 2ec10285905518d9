// Preloaded (`node --import ./loopback.mjs …`) in front of servers written by others that listen
// on every interface at a fixed port: every HTTP server in the process binds 127.0.0.1 instead
// (the port the server asked for is kept; PORT=0 picks a free one), and once it accepts
// connections `listening on http://127.0.0.1:PORT/mcp` is printed on stderr for the test to read.
import http from 'node:http';

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  const port = typeof args[0] === 'object' && args[0] !== null ? args[0].port : Number(args[0] ?? 0);
  const callback = args.find((a) => typeof a === 'function');
  this.once('listening', () => console.error(`listening on http://127.0.0.1:${this.address().port}/mcp`));
  return listen.call(this, { port, host: '127.0.0.1' }, callback);
};
