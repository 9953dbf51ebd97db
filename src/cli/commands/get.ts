import { Option, type Command } from 'commander';
import { armExportLosses, exportArmProfile } from '../../core/model/arm-export';
import { childProfileName } from '../../core/model/names';
import { toJsonText } from '../util/files';
import { withClient } from '../util/command';
import { isNotFound, notFoundError, serverFailure, serverOptions, type ServerOptions } from '../util/server';

/**
 * `tmkit get PROFILE [--output json|arm]`: one deployed profile. `json` is the stored (normalized) tmkit/v1
 * profile; `arm` is the JSON Azure would print for it (`az network traffic-manager profile show`), with the
 * live monitor statuses and FQDNs, which `tmkit import` reads back to the same profile.
 */
export function registerGet(program: Command): void {
  serverOptions(
    program
      .command('get')
      .description('print one deployed profile: the tmkit/v1 profile (json) or the ARM JSON Azure would print for it (arm)')
      .argument('<profile>', 'profile name'),
  )
    .addOption(
      new Option('-o, --output <format>', "json: the stored tmkit/v1 profile; arm: Azure's resource JSON, with monitor statuses")
        .choices(['json', 'arm'])
        .default('json'),
    )
    .action(async (name: string, opts: ServerOptions & { output: 'json' | 'arm' }) => {
      await withClient(
        opts,
        async (client) => {
          const entry = await client.getProfile(name);
          if (opts.output === 'json') {
            process.stdout.write(toJsonText(entry.profile));
            return;
          }
          const status = await client.status(entry.profile.name);
          const rn = entry.profile.dnsConfig.relativeName.replace(/\.$/, '').toLowerCase();
          const zone = status.fqdn.startsWith(`${rn}.`) ? status.fqdn.slice(rn.length + 1) : status.fqdn;
          const children = entry.profile.endpoints.filter((e) => e.type === 'nestedEndpoints' && e.targetResourceId !== undefined);
          const relativeNames = new Map<string, string>();
          if (children.length > 0) {
            for (const p of (await client.listProfiles()).profiles)
              relativeNames.set(p.name.toLowerCase(), p.profile.dnsConfig.relativeName);
          }
          const monitor = new Map(status.endpoints.map((e) => [e.name, e.endpointMonitorStatus]));
          // What Azure's JSON cannot hold is said on stderr, so stdout stays the resource JSON.
          for (const loss of armExportLosses(entry.profile)) process.stderr.write(`tmkit: not in the ARM JSON: ${loss}\n`);
          process.stdout.write(
            toJsonText(
              exportArmProfile(entry.profile, {
                zone,
                profileMonitorStatus: status.profileMonitorStatus,
                endpointMonitorStatus: (e) => monitor.get(e),
                relativeNameOf: (p) => relativeNames.get(childProfileName(p).toLowerCase()),
              }),
            ),
          );
        },
        async (err, client) => (isNotFound(err) ? notFoundError(client, name) : serverFailure(err)),
      );
    });
}
