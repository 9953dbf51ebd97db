import type { Command } from 'commander';
import type { NodeReadiness } from '../../core/api';
import { toJsonText } from '../util/files';
import { operationsFailure, whoOption } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface NodeOptions extends ServerOptions {
  who?: string;
  reason?: string;
  json?: boolean;
}

/** One line: `ready`, or `draining: …` / `not ready: …` with the reason `/readyz` gives. */
function line(r: NodeReadiness): string {
  return r.ready ? 'ready\n' : `${r.state}: ${r.reason ?? ''}\n`;
}

/**
 * `tmkit node drain|undrain|status` (docs/cli.md, docs/runtime.md): take the node the CLI talks to out of
 * rotation and back. Draining fails `GET /readyz` (503) so anycast health checkers and Kubernetes stop sending
 * it traffic; DNS keeps answering meanwhile. Kept in memory: a restarted node is back in rotation.
 */
export function registerNode(program: Command): void {
  const node = program
    .command('node')
    .description("this node's readiness (GET /readyz): drain it out of rotation for maintenance, undrain it, or ask");

  const run = (what: (o: NodeOptions) => Promise<NodeReadiness>) => async (opts: NodeOptions) => {
    try {
      const r = await what(opts);
      process.stdout.write(opts.json ? toJsonText(r) : line(r));
    } catch (err) {
      throw operationsFailure(err);
    }
  };
  const body = (o: NodeOptions) => ({
    ...(o.who !== undefined ? { who: o.who } : {}),
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
  });
  const withClient =
    (f: (c: ReturnType<typeof clientFor>, o: NodeOptions) => Promise<NodeReadiness>) =>
    async (o: NodeOptions): Promise<NodeReadiness> => {
      const client = clientFor(o);
      try {
        return await f(client, o);
      } finally {
        await client.close();
      }
    };

  const moves = [
    {
      name: 'drain',
      description: 'take this node out of rotation: /readyz answers 503 (DNS keeps answering) until undrain or a restart',
      reason: 'why, for /readyz, the audit log and the live events',
      send: (c: ReturnType<typeof clientFor>, o: NodeOptions) => c.drainNode(body(o)),
    },
    {
      name: 'undrain',
      description: 'put this node back into rotation (/readyz answers 200 again when nothing else is wrong)',
      reason: 'why, for the audit log',
      send: (c: ReturnType<typeof clientFor>, o: NodeOptions) => c.undrainNode(body(o)),
    },
  ];
  for (const m of moves) {
    whoOption(
      serverOptions(
        node.command(m.name).description(m.description).option('--reason <text>', m.reason).option('--json', 'print the readiness as JSON'),
      ),
    ).action(run(withClient(m.send)));
  }

  serverOptions(
    node
      .command('status')
      .description('one line: ready, draining (by whom, since when) or not ready, and why')
      .option('--json', 'print {"state", "ready", "reason", "drain"}'),
  ).action(run(withClient((c) => c.node())));
}
