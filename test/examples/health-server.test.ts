/**
 * examples/health-server.js on a busy port (issue 28 item 9): the hint no longer sends the user to another
 * --port (the examples probe 8080, so that would leave them Degraded), but to the health-server that is
 * probably running already. A loopback listener of the test's own on a free port makes the port busy.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

test('a busy port: one line saying something listens there, perhaps a health-server already; exit 1', async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  try {
    const port = (busy.address() as { port: number }).port;
    const r = spawnSync(process.execPath, [join(__dirname, '../../examples/health-server.js'), '--port', String(port), '127.0.0.1'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `health-server: cannot listen: listen EADDRINUSE: address already in use 127.0.0.1:${port}; something already listens there, ` +
        'perhaps a health-server started before (then the examples are answered already; stop it with Ctrl-C where it runs).\n',
    );
  } finally {
    await new Promise((r) => busy.close(r));
  }
});
