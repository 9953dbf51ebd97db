#!/usr/bin/env node
/**
 * A tiny health endpoint for the examples, so they are healthy on a machine with no internet:
 * `GET /healthz` answers 200 on every loopback address the examples use (examples/basic: 127.0.0.1 and
 * 127.0.0.2; examples/nested: 127.0.0.11, .21, .22 and .31), on one port (8080, the port the examples
 * probe). Anything else answers 404.
 *
 *   node examples/health-server.js                     # port 8080, every address above
 *   node examples/health-server.js --down 127.0.0.1    # that address answers 503: watch the failover
 *   node examples/health-server.js --port 0 127.0.0.5  # any free port (printed), only 127.0.0.5
 *
 * Options: --port N (8080; 0 picks a port free on every address), --path P (/healthz), --down ADDR
 * (repeatable). Positional arguments replace the address list. Ctrl-C or SIGTERM stops it. Linux routes
 * all of 127.0.0.0/8 to the loopback interface; on macOS add the extra addresses first
 * (`sudo ifconfig lo0 alias 127.0.0.2`).
 */
'use strict';
const { createServer } = require('node:http');

const DEFAULT_ADDRESSES = ['127.0.0.1', '127.0.0.2', '127.0.0.11', '127.0.0.21', '127.0.0.22', '127.0.0.31'];

function parse(argv) {
  const o = { port: 8080, path: '/healthz', down: new Set(), addresses: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--port') o.port = Number(value());
    else if (a === '--path') o.path = value();
    else if (a === '--down') o.down.add(value());
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`usage: node examples/health-server.js [--port 8080] [--path /healthz] [--down ADDR]... [ADDR...]\n`);
      process.exit(0);
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else o.addresses.push(a);
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw new Error(`--port: expected 0-65535, got ${o.port}`);
  if (!o.path.startsWith('/')) throw new Error(`--path: expected a path starting with "/", got ${o.path}`);
  if (o.addresses.length === 0) o.addresses = DEFAULT_ADDRESSES;
  return o;
}

function listen(address, port, o) {
  const server = createServer((req, res) => {
    const up = !o.down.has(address);
    const ok = req.method === 'GET' && req.url === o.path;
    res.writeHead(ok ? (up ? 200 : 503) : 404, { 'content-type': 'text/plain' });
    res.end(ok ? (up ? 'ok\n' : 'down (--down)\n') : 'not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

async function listenAll(o) {
  // One port for every address (a profile probes one port). With --port 0 the first address picks it.
  for (let attempt = 0; ; attempt++) {
    const servers = [];
    try {
      let port = o.port;
      for (const address of o.addresses) {
        const s = await listen(address, port, o);
        servers.push(s);
        port = s.address().port;
      }
      return { servers, port };
    } catch (err) {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      if (o.port !== 0 || err.code !== 'EADDRINUSE' || attempt >= 20) throw err;
    }
  }
}

async function main() {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`health-server: ${err.message} (see --help)\n`);
    process.exit(2);
  }
  let started;
  try {
    started = await listenAll(o);
  } catch (err) {
    const hint =
      err.code === 'EADDRINUSE'
        ? `; something already listens there, perhaps a health-server started before (then the examples are answered already; stop it with Ctrl-C where it runs).${o.port === 8080 ? ' Another --port does not help the examples: they probe port 8080' : ''}`
        : err.code === 'EADDRNOTAVAIL'
          ? '; that address is not configured on this machine (see the header of this file)'
          : '';
    process.stderr.write(`health-server: cannot listen: ${err.message}${hint}\n`);
    process.exit(1);
  }
  const { servers, port } = started;
  const where = o.addresses.map((a) => `${a}${o.down.has(a) ? ' (503)' : ''}`).join(', ');
  process.stdout.write(`health-server: GET ${o.path} answers 200 on port ${port} at ${where}\n`);
  const stop = () => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
