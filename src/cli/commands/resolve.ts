import { isIP } from 'node:net';
import { Option, type Command } from 'commander';
import { CliError, EXIT_USAGE } from '../errors';
import { toJsonText } from '../util/files';
import { clientFor, serverFailure, serverOptions, type ServerOptions } from '../util/server';

/** `tmkit resolve NAME`: what the running server would answer now, with the outcomes and why. */
export function registerResolve(program: Command): void {
  serverOptions(program
    .command('resolve')
    .description('ask the running server what it would answer for NAME now, with every possible outcome and the explanation')
    .argument('<name>', 'DNS name, e.g. contoso.tm.internal')
    .option('--type <type>', 'query type (A, AAAA, CNAME, ANY)', 'A')
    .option('--client <ip>', 'client address routing uses (Geographic, Performance, Subnet)', '127.0.0.1'))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (name: string, opts: ServerOptions & { type: string; client: string; format: 'text' | 'json' }) => {
      if (isIP(opts.client) === 0) throw new CliError(`--client ${opts.client}: not an IP address`, EXIT_USAGE);
      const client = clientFor(opts);
      try {
        const r = await client.resolve({ name, type: opts.type.toUpperCase(), clientIp: opts.client });
        if (opts.format === 'json') { process.stdout.write(toJsonText(r)); return; }
        const out = [`${name} ${r.query.type} from ${r.query.clientIp}: ${r.rcode}${r.records.length === 0 && r.rcode === 'NOERROR' ? ' (no data)' : ''}`];
        for (const rec of r.records) out.push(`  ${rec.name}. ${rec.ttl} IN ${rec.type} ${rec.data}`);
        if (r.outcomes.length > 1) {
          out.push('possible answers:');
          for (const o of r.outcomes) out.push(`  ${(o.probability * 100).toFixed(1).padStart(5)}%  ${o.records.map((x) => `${x.type} ${x.data}`).join(', ') || '(none)'}  via ${o.endpoints.join(', ')}`);
        }
        if (r.explanation.length > 0) {
          out.push('why:');
          for (const s of r.explanation) out.push(`  ${s.profile ? `[${s.profile}] ` : ''}${s.kind}${s.endpoint ? ` ${s.endpoint}` : ''}: ${s.detail}`);
        }
        process.stdout.write(`${out.join('\n')}\n`);
      } catch (err) {
        throw serverFailure(err);
      } finally {
        await client.close();
      }
    });
}
