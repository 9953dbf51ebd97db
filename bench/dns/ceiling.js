'use strict';
// The Node.js ceiling: a node:dgram server that only copies the query ID into a canned reply.
// Usage: node ceiling.js PORT [WORKERS] [shared|reuseport]
//   WORKERS > 1: node:cluster processes; shared (default): they share the primary's one socket;
//   reuseport: each binds its own socket with SO_REUSEPORT (Node >= 22.12 on Linux) and the kernel spreads
//   the queries over them, as `tmkit serve --workers N` does there.
const cluster = require('node:cluster');
const dgram = require('node:dgram');
const dnsPacket = require('dns-packet');
const port = Number(process.argv[2]);
const workers = Number(process.argv[3] || 1);
const reusePort = process.argv[4] === 'reuseport';
if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  const canned = dnsPacket.encode({
    type: 'response',
    id: 0,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [{ type: 'A', name: 'weighted.tm.internal' }],
    answers: [{ type: 'A', name: 'weighted.tm.internal', ttl: 30, data: '192.0.2.1' }],
  });
  const sock = dgram.createSocket(reusePort ? { type: 'udp4', reusePort: true } : 'udp4');
  sock.on('message', (msg, rinfo) => {
    const out = Buffer.from(canned); // a copy: send() is asynchronous, the next query must not overwrite it
    out[0] = msg[0];
    out[1] = msg[1];
    sock.send(out, rinfo.port, rinfo.address);
  });
  sock.on('error', (err) => {
    console.error(`ceiling: ${err.message}`);
    process.exit(1);
  });
  sock.bind({ port, address: '127.0.0.1', exclusive: reusePort });
}
