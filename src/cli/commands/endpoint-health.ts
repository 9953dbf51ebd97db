import type { Command } from 'commander';
import { TmkitApiError } from '../../client';
import { CliError, EXIT_USAGE } from '../errors';
import { formatDuration, parseDuration } from '../../core/operations/duration';
import { toJsonText } from '../util/files';
import { whoOption } from '../util/operations';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

interface HealthOptions extends ServerOptions {
  for?: string;
  reason?: string;
  clear?: boolean;
  json?: boolean;
}

/**
 * `tmkit endpoint health PROFILE ENDPOINT online|degraded --for 5m [--reason TEXT]`, and `--clear`: health
 * pushed from outside (docs/health.md). The endpoint's status is the worse of its probes' and the pushed one
 * until the time is up; the command returns once DNS serves it. Registered under `tmkit endpoint` (endpoint.ts
 * makes that command; this module only adds to it, so the two stay independent).
 */
export function registerEndpointHealth(program: Command): void {
  const endpoint = program.commands.find((c) => c.name() === 'endpoint');
  if (!endpoint) throw new Error('tmkit endpoint must be registered before tmkit endpoint health');
  whoOption(
    serverOptions(
      endpoint
        .command('health')
        .description(
          'push health from outside (a deploy, an alert): the endpoint counts as the worse of its probes and this until --for ends; --clear ends it now',
        )
        .argument('<profile>', 'profile name')
        .argument('<endpoint>', 'endpoint name')
        .argument('[status]', 'online or degraded')
        .option('--for <duration>', 'how long it holds: 90s, 5m, 2h, 1d (at most 1d)')
        .option('--reason <text>', 'why (shown in tmkit status, the dashboard and webhooks)')
        .option('--clear', "end the endpoint's pushed health now")
        .option('--json', 'print the result as JSON'),
    ),
  ).action(async (profile: string, name: string, status: string | undefined, opts: HealthOptions) => {
    if (opts.clear && status !== undefined) throw new CliError('give a status (online, degraded) or --clear, not both', EXIT_USAGE);
    const normalized =
      status === undefined
        ? undefined
        : ({ online: 'Online', degraded: 'Degraded' } as const)[status.toLowerCase() as 'online' | 'degraded'];
    if (!opts.clear && normalized === undefined)
      throw new CliError(
        `${status === undefined ? 'a status is needed' : `status ${status}`}: online or degraded (or --clear)`,
        EXIT_USAGE,
      );
    // The same durations as `override --for` (core/operations/duration.ts), in whole seconds.
    const ms = opts.for === undefined ? undefined : parseDuration(opts.for);
    const ttl = ms !== undefined && ms % 1000 === 0 ? ms / 1000 : undefined;
    if (!opts.clear && (ttl === undefined || ttl < 1 || ttl > 86_400)) {
      throw new CliError(`--for ${opts.for ?? '(missing)'}: how long it holds, from 1s to 1d, e.g. --for 5m`, EXIT_USAGE);
    }
    const client = clientFor(opts);
    try {
      if (opts.clear) {
        const r = await client.clearHealth(profile, name);
        process.stdout.write(
          opts.json
            ? toJsonText(r)
            : r.cleared
              ? `Cleared the pushed health of ${r.profile}/${r.endpoint}; its probes alone decide again.\n`
              : `Nothing to clear: ${r.profile}/${r.endpoint} has no pushed health.\n`,
        );
        return;
      }
      const r = await client.pushHealth(profile, name, {
        status: normalized!,
        ttlSeconds: ttl!,
        ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
      });
      process.stdout.write(
        opts.json
          ? toJsonText(r)
          : `Pushed ${r.status} for ${r.profile}/${r.endpoint} for ${formatDuration(ttl! * 1000)} ` +
              `(until ${r.expiresAt})${r.reason !== '' ? `: ${r.reason}` : ''}; DNS serves it now.\n`,
      );
    } catch (err) {
      if (err instanceof TmkitApiError && (err.code === 'NOT_FOUND' || err.code === 'HEALTH_NOT_APPLICABLE')) {
        throw new CliError(`${err.errors[0]?.message ?? err.message}; nothing was changed`);
      }
      throw serverFailure(err);
    } finally {
      await client.close();
    }
  });
}
