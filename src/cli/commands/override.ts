import type { Command } from 'commander';
import type { OverrideKind, OverrideRequest } from '../../core/api';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from '../util/files';
import { durationMs, operationsFailure, overrideLine, printListing, whoOption } from '../util/operations';
import { clientFor, serverOptions, type ServerOptions } from '../util/server';

interface OverrideOptions extends ServerOptions {
  for?: string;
  reason?: string;
  force?: boolean;
  json?: boolean;
  who: string;
}

/**
 * `tmkit override down|weight|list|clear` (docs/operations.md): runtime traffic operations with an expiry.
 * `down` takes an endpoint out of DNS at once (Always Serve too), refused by the safety rule when it would
 * leave a profile with nothing to serve (`--force`); `weight` replaces an endpoint's weight. Not
 * configuration: the profile is never changed, so Terraform and Pulumi see no drift.
 */
export function registerOverride(program: Command): void {
  const override = program
    .command('override')
    .description('runtime traffic overrides that expire by themselves: take an endpoint out, change its weight');

  const make = async (
    kind: OverrideKind,
    profile: string,
    endpoint: string,
    weight: number | undefined,
    opts: OverrideOptions,
  ): Promise<void> => {
    if (opts.for === undefined) throw new CliError('--for DURATION is required: every override expires by itself (at most 7d)', EXIT_USAGE);
    durationMs('--for', opts.for);
    const request: OverrideRequest = {
      kind,
      profile,
      endpoint,
      for: opts.for,
      who: opts.who,
      ...(weight !== undefined ? { weight } : {}),
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
      ...(opts.force ? { force: true } : {}),
    };
    const client = clientFor(opts);
    try {
      const r = await client.createOverride(request);
      if (opts.json) {
        process.stdout.write(toJsonText(r.override));
        return;
      }
      const what =
        kind === 'down'
          ? `${r.override.profile}/${r.override.endpoint} is out of DNS`
          : `${r.override.profile}/${r.override.endpoint} has weight ${r.override.weight}`;
      process.stdout.write(
        `Override ${r.override.id}: ${what} until ${r.override.expiresAt}${r.replaced.length > 0 ? ` (replaces ${r.replaced.join(', ')})` : ''}. ` +
          `Clear it with \`tmkit override clear ${r.override.id}\`.\n`,
      );
    } catch (err) {
      throw operationsFailure(err);
    } finally {
      await client.close();
    }
  };

  const common = (cmd: Command): Command =>
    whoOption(
      serverOptions(
        cmd
          .requiredOption('--for <duration>', 'how long (90s, 30m, 2h, 1d; at most 7d): it ends by itself then')
          .option('--reason <text>', 'why, for the audit log and status')
          .option('--json', 'print the override (with its id) as JSON'),
      ),
    );

  common(
    override
      .command('down')
      .description('take an endpoint out of DNS now (routing treats it as Degraded; Always Serve does not bypass it)')
      .argument('<profile>')
      .argument('<endpoint>')
      .option('--force', 'take it out even when that leaves a profile with no endpoint able to serve'),
  ).action((profile: string, endpoint: string, opts: OverrideOptions) => make('down', profile, endpoint, undefined, opts));

  common(
    override
      .command('weight')
      .description("replace an endpoint's weight (Weighted routing) for a while")
      .argument('<profile>')
      .argument('<endpoint>')
      .argument('<weight>', 'the weight, 1–1000'),
  ).action((profile: string, endpoint: string, weight: string, opts: OverrideOptions) => {
    const w = Number(weight);
    if (!Number.isInteger(w) || w < 1 || w > 1000) throw new CliError(`weight ${weight}: expected an integer 1–1000`, EXIT_USAGE);
    return make('weight', profile, endpoint, w, opts);
  });

  serverOptions(override.command('list').description('the overrides in force').option('--json', 'print {"overrides": [...]}')).action(
    (opts: OverrideOptions) =>
      printListing(
        opts,
        (client) => client.listOverrides(),
        (list) => list.overrides,
        'No overrides in force.\n',
        (o) => overrideLine(o),
      ),
  );

  whoOption(
    serverOptions(
      override
        .command('clear')
        .description('end an override now')
        .argument('<id>', "the override's id (tmkit override list)")
        .option('--reason <text>', 'why, for the audit log')
        .option('--json', 'print the cleared override as JSON'),
    ),
  ).action(async (id: string, opts: OverrideOptions) => {
    const client = clientFor(opts);
    try {
      const r = await client.clearOverride(id, { who: opts.who, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
      if (opts.json) {
        process.stdout.write(toJsonText(r.override));
        return;
      }
      process.stdout.write(
        `Cleared override ${id} (${r.override.kind === 'down' ? 'down' : `weight ${r.override.weight}`} ${r.override.profile}/${r.override.endpoint}).\n`,
      );
    } catch (err) {
      throw operationsFailure(err);
    } finally {
      await client.close();
    }
  });
}
