import { isIP } from 'node:net';
import { Option, type Command } from 'commander';
import { CliError, EXIT_USAGE } from '../errors';
import { closestValue } from '../../core/validate/util';
import type { TmkitClient } from '../../client';
import { toJsonText } from '../util/files';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

/** `tmkit resolve NAME`: what the running server would answer now, with the outcomes and why. */
export function registerResolve(program: Command): void {
  serverOptions(
    program
      .command('resolve')
      .description('ask the running server what it would answer for NAME now, with every possible outcome and the explanation')
      .argument('<name>', 'DNS name, e.g. contoso.tm.internal')
      .option('--type <type>', 'query type (A, AAAA, CNAME, ANY)', 'A')
      .option('--client <ip>', 'client address routing uses (Geographic, Performance, Subnet)', '127.0.0.1'),
  )
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (name: string, opts: ServerOptions & { type: string; client: string; format: 'text' | 'json' }) => {
      if (isIP(opts.client) === 0) throw new CliError(`--client ${opts.client}: not an IP address`, EXIT_USAGE);
      const client = clientFor(opts);
      try {
        const r = await client.resolve({ name, type: opts.type.toUpperCase(), clientIp: opts.client });
        if (opts.format === 'json') {
          process.stdout.write(toJsonText(r));
          return;
        }
        const out = [
          `${name} ${r.query.type} from ${r.query.clientIp}: ${r.rcode}${r.records.length === 0 && r.rcode === 'NOERROR' ? ' (no data)' : ''}`,
        ];
        for (const rec of r.records) out.push(`  ${rec.name}. ${rec.ttl} IN ${rec.type} ${rec.data}`);
        if (r.outcomes.length > 1) {
          out.push('possible answers:');
          for (const o of r.outcomes)
            out.push(
              `  ${(o.probability * 100).toFixed(1).padStart(5)}%  ` +
                `${o.records.map((x) => `${x.type} ${x.data}`).join(', ') || '(none)'}  via ${o.endpoints.join(', ')}`,
            );
        }
        if (r.explanation.length > 0) {
          out.push('why:');
          for (const s of r.explanation)
            out.push(`  ${s.profile ? `[${s.profile}] ` : ''}${s.kind}${s.endpoint ? ` ${s.endpoint}` : ''}: ${s.detail}`);
        }
        process.stdout.write(`${out.join('\n')}\n`);
        if (r.rcode === 'REFUSED' || r.rcode === 'NXDOMAIN') {
          const near = await nameHint(client, name);
          if (near !== undefined)
            process.stderr.write(
              `tmkit: ${r.rcode === 'REFUSED' ? `${name} is outside the zone ${near.zone}` : `${name} does not exist`}; did you mean ${near.fqdn}?\n`,
            );
        }
      } catch (err) {
        throw serverFailure(err);
      } finally {
        await client.close();
      }
    });
}

/**
 * For a name the server refused (outside the zone: `web`) or does not know (`wbe.tm.internal`): the deployed
 * profile's FQDN it most likely means (`web.tm.internal`), with the zone; undefined when none is close.
 */
async function nameHint(client: TmkitClient, name: string): Promise<{ fqdn: string; zone: string } | undefined> {
  try {
    const profiles = (await client.listProfileSummaries()).profiles;
    if (profiles.length === 0) return undefined;
    const first = profiles[0]!;
    const rn = first.relativeName.replace(/\.$/, '').toLowerCase();
    const fqdn = (await client.status(first.name)).fqdn.replace(/\.$/, '').toLowerCase();
    const zone = fqdn.startsWith(`${rn}.`) ? fqdn.slice(rn.length + 1) : fqdn;
    const n = name.replace(/\.$/, '').toLowerCase();
    const label = n.endsWith(`.${zone}`) ? n.slice(0, -zone.length - 1) : n;
    const near = closestValue(
      label,
      profiles.map((p) => p.relativeName.replace(/\.$/, '').toLowerCase()),
    );
    return near === undefined || `${near}.${zone}` === n ? undefined : { fqdn: `${near}.${zone}`, zone };
  } catch {
    return undefined;
  }
}
