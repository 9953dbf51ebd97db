import type { Command } from 'commander';
import { TmkitApiError } from '../../client';
import { CliError } from '../errors';
import { whoOption } from '../util/operations';
import { clientFor, isNotFound, notFoundError, serverFailure, serverOptions, type ServerOptions } from '../util/server';

interface EndpointOptions extends ServerOptions {
  stack?: string;
  reason?: string;
  force?: boolean;
}

/**
 * `tmkit endpoint disable|enable PROFILE ENDPOINT [--stack S]`: maintenance. One merge PATCH of the
 * endpoint's `endpointStatus` (docs/api.md); with `--stack` the server refuses a profile owned by another
 * stack (409 STACK_CONFLICT), as a plan would. A disabled endpoint is neither probed nor answered. The
 * safety rule of `override down` applies to `disable` (docs/operations.md): refused (exit 1, one line) when it
 * would leave the profile, or one nesting it, with no endpoint able to serve; `--force` disables it anyway.
 */
export function registerEndpoint(program: Command): void {
  const endpoint = program
    .command('endpoint')
    .description('endpoint maintenance on the running server: take an endpoint out of rotation and back');
  for (const action of ['disable', 'enable'] as const) {
    whoOption(
      serverOptions(
        endpoint
          .command(action)
          .description(
            action === 'disable'
              ? 'disable an endpoint (endpointStatus Disabled): it is no longer probed or answered'
              : 'enable an endpoint again (endpointStatus Enabled): it is probed at once and answered when healthy',
          )
          .argument('<profile>', 'profile name')
          .argument('<endpoint>', 'endpoint name')
          .option('--stack <name>', 'refuse unless the profile belongs to this stack (the check a plan makes)')
          .option('--reason <text>', 'why, for the audit log (tmkit audit)')
          .option(
            '--force',
            action === 'disable'
              ? 'disable it even when that leaves a profile with no endpoint able to serve'
              : 'skip the safety rule (enabling never trips it)',
          ),
      ),
    ).action(async (profile: string, name: string, opts: EndpointOptions) => {
      const status = action === 'disable' ? 'Disabled' : 'Enabled';
      const client = clientFor(opts);
      try {
        const r = await client.patchEndpoint(
          profile,
          name,
          { endpointStatus: status },
          {
            ...(opts.stack !== undefined ? { stack: opts.stack } : {}),
            ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
            ...(opts.force ? { force: true } : {}),
          },
        );
        const where = `endpoint ${name} of profile ${r.name} (stack "${r.stack}")`;
        if (!r.changed) {
          process.stdout.write(`Nothing to do: ${where} is already ${status}.\n`);
          return;
        }
        process.stdout.write(`${status === 'Disabled' ? 'Disabled' : 'Enabled'} ${where}; ETag ${r.etag}.\n`);
        const enabled = r.profile.endpoints.filter((e) => e.endpointStatus === 'Enabled').length;
        if (status === 'Disabled' && enabled === 0) {
          const fqdn = await client.status(r.name).then(
            (x) => x.fqdn,
            () => r.profile.dnsConfig.relativeName,
          );
          process.stderr.write(
            `tmkit: warning: profile ${r.name} has no enabled endpoint now, so DNS answers NXDOMAIN for ${fqdn}; ` +
              `run \`tmkit endpoint enable ${r.name} <endpoint>\` to bring one back\n`,
          );
        }
      } catch (err) {
        if (isNotFound(err)) throw await notFoundError(client, profile, name);
        if (err instanceof TmkitApiError && err.code === 'ENDPOINT_UNSAFE')
          throw new CliError(err.errors[0]?.message ?? `refused: disabling ${profile}/${name} would leave nothing to serve`);
        if (err instanceof TmkitApiError && err.code === 'STACK_CONFLICT') {
          throw new CliError(
            `${err.errors[0]?.message ?? `profile ${profile} belongs to another stack`}; nothing was changed (drop --stack or name the owning stack)`,
          );
        }
        throw serverFailure(err);
      } finally {
        await client.close();
      }
    });
  }
}
