import type { Command } from 'commander';
import { childProfileName } from '../../core/model/names';
import type { Profile } from '../../core/model/types';
import { parseDocument } from '../../core/validate';
import { TmkitApiError } from '../../client';
import { CliError, EXIT_FAILED, setExitCode } from '../main';
import { renderText, type PrintableDiagnostic } from '../util/diagnostics';
import { loadDocument, profileNames } from '../util/document';
import { clientFor, serverOptions, type ServerOptions } from './status';

/**
 * Children before parents: a nested endpoint's child profile (when it is in the same document) is written
 * first, so the server's "nested target exists" rule holds after every single PUT. Stable otherwise.
 */
export function applyOrder(profiles: readonly Profile[]): Profile[] {
  const byName = new Map(profiles.map((p) => [p.name.toLowerCase(), p]));
  const out: Profile[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: Profile): void => {
    const k = p.name.toLowerCase();
    if (state.get(k) !== undefined) return; // done, or a cycle (validation has refused those already)
    state.set(k, 'visiting');
    for (const e of p.endpoints) {
      if (e.type !== 'nestedEndpoints' || e.targetResourceId === undefined) continue;
      const child = byName.get(childProfileName(e.targetResourceId).toLowerCase());
      if (child) visit(child);
    }
    state.set(k, 'done');
    out.push(p);
  };
  profiles.forEach(visit);
  return out;
}

/**
 * `tmkit apply FILE --yes` (minimal; the plan-based apply is issue 7): validate against the deployed
 * profiles, then PUT every profile of the document with its stack, children first. Deletes nothing.
 */
export function registerApply(program: Command): void {
  serverOptions(program
    .command('apply')
    .description('deploy every profile of a document to the running server (children before parents; deletes nothing)')
    .argument('<file>', 'tmkit/v1 document (or the JSON Azure prints for profiles); - reads stdin')
    .option('--yes', 'apply without asking'))
    .action(async (file: string, opts: ServerOptions & { yes?: boolean }, cmd: Command) => {
      const loaded = loadDocument(file);
      const client = clientFor(opts);
      try {
        let deployed: Profile[];
        try {
          deployed = (await client.listProfiles()).profiles.map((e) => e.profile);
        } catch (err) {
          throw new CliError(`apply: cannot read the deployed profiles: ${(err as Error).message}`);
        }
        const names = new Set(profileNames(loaded.input).map((n) => n.toLowerCase()));
        const context = deployed.filter((p) => !names.has(p.name.toLowerCase()));
        const { document, diagnostics } = parseDocument(loaded.input, { context });
        const all = [...loaded.importIssues, ...diagnostics] as PrintableDiagnostic[];
        if (!document || all.some((d) => d.severity === 'error')) {
          process.stderr.write(renderText(all, profileNames(loaded.input)));
          throw new CliError(`apply: ${file} is invalid; nothing was applied`);
        }
        const order = applyOrder(document.profiles);
        if (!opts.yes) {
          process.stdout.write(`would write ${order.length} profile${order.length === 1 ? '' : 's'} to ${client.server} as stack '${document.stack}': ${order.map((p) => p.name).join(', ')}\n` +
            're-run with --yes to apply (or use `tmkit plan` to see the changes first)\n');
          setExitCode(cmd, EXIT_FAILED);
          return;
        }
        let changed = 0;
        for (const p of order) {
          try {
            const r = await client.putProfile(p, { stack: document.stack });
            if (r.changed) changed++;
            process.stdout.write(`${r.created ? '+ created ' : r.changed ? '~ updated ' : '= unchanged'} ${p.name}  ${r.etag}\n`);
            for (const w of r.warnings) process.stdout.write(`    warning ${w.path ?? ''} ${w.code}: ${w.message}\n`);
          } catch (err) {
            const why = err instanceof TmkitApiError ? err.message : (err as Error).message;
            throw new CliError(`apply: writing profile '${p.name}' failed; ${changed} profile(s) were written before it:\n${why}`);
          }
        }
        process.stdout.write(`applied ${order.length} profile${order.length === 1 ? '' : 's'} (${changed} changed) to ${client.server}, stack '${document.stack}'\n`);
      } finally {
        await client.close();
      }
    });
}
