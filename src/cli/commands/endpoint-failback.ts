import type { Command } from 'commander';
import { operationsFailure, whoOption } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface FailbackOptions extends ServerOptions {
  who: string;
  reason?: string;
}

/**
 * `tmkit endpoint failback PROFILE ENDPOINT` (docs/operations.md): approves the failback of an endpoint of a
 * profile with `failback.mode` Manual. AwaitingFailback: answered again at once; still Degraded: answered
 * again once it recovers. Registered under `tmkit endpoint` (endpoint.ts makes that command).
 */
export function registerEndpointFailback(program: Command): void {
  const endpoint = program.commands.find((c) => c.name() === 'endpoint') ?? program.command('endpoint');
  whoOption(
    serverOptions(
      endpoint
        .command('failback')
        .description('fail an endpoint back by hand (profiles with failback mode Manual): AwaitingFailback → Online')
        .argument('<profile>', 'profile name')
        .argument('<endpoint>', 'endpoint name')
        .option('--reason <text>', 'why, for the audit log'),
    ),
  ).action(async (profile: string, name: string, opts: FailbackOptions) => {
    const client = clientFor(opts);
    try {
      const r = await client.failback(profile, name, { who: opts.who, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
      process.stdout.write(
        r.status === 'AwaitingFailback'
          ? `Failed back endpoint ${r.endpoint} of profile ${r.profile}: it is Online and answered again.\n`
          : `Approved the failback of endpoint ${r.endpoint} of profile ${r.profile}: it is still ${r.status}, and is answered again once it recovers.\n`,
      );
    } catch (err) {
      throw operationsFailure(err);
    } finally {
      await client.close();
    }
  });
}
