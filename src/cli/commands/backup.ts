import type { Command } from 'commander';
import { backupStore, restoreStore, StoreError, type BackupResult, type RestoreResult } from '../../runtime/store';
import { CliError } from '../errors';

const kib = (n: number): string => `${Math.max(1, Math.round(n / 1024))} KiB`;

function failure(command: string, err: unknown): never {
  if (err instanceof StoreError) throw new CliError(`${command}: ${err.message}`);
  throw err;
}

/**
 * `tmkit backup FILE` and `tmkit restore FILE`: a consistent copy of the store (SQLite online backup,
 * safe while `tmkit serve` runs), and putting one back (refused while a serve uses the state dir).
 */
export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description('write a consistent copy of the store (tmkit.db) to FILE; safe while tmkit serve runs')
    .argument('<file>', 'the backup file to write (a self-contained SQLite database)')
    .option('--state-dir <dir>', 'the state dir of the store to copy', '.tmkit')
    .option('--force', 'overwrite FILE if it exists')
    .action(async (file: string, opts: { stateDir: string; force?: boolean }) => {
      let r: BackupResult;
      try {
        r = await backupStore(opts.stateDir, file, { overwrite: opts.force === true });
      } catch (err) {
        failure('backup', err);
      }
      const secrets = [...(r.dnssecKeys ? ['the DNSSEC keys'] : []), ...(r.cookieSecret ? ['the DNS cookie secret'] : [])];
      process.stdout.write(
        `tmkit backup: wrote ${r.file} (${r.profiles} profile${r.profiles === 1 ? '' : 's'}, store revision ${r.revision}, ` +
          `${kib(r.bytes)}${secrets.length > 0 ? `, with ${secrets.join(' and ')}: keep it private, mode 0600` : ''}) from ${r.source}; integrity ok\n`,
      );
    });
  program
    .command('restore')
    .description('replace the store (tmkit.db) with a backup; refused while tmkit serve uses the state dir')
    .argument('<file>', 'a backup written by `tmkit backup`')
    .option('--state-dir <dir>', 'the state dir to restore into', '.tmkit')
    .action((file: string, opts: { stateDir: string }) => {
      let r: RestoreResult;
      try {
        r = restoreStore(opts.stateDir, file);
      } catch (err) {
        failure('restore', err);
      }
      process.stdout.write(
        `tmkit restore: ${r.target} now holds ${r.file} (${r.profiles} profile${r.profiles === 1 ? '' : 's'}, ` +
          `store revision ${r.revision})${r.dnssecKeys ? ' and its DNSSEC keys are back in dnssec-keys.json' : ''}` +
          `${r.cookieSecret ? `${r.dnssecKeys ? ',' : ' and'} its DNS cookie secret is back in dns-cookie-secret.json` : ''}` +
          `${r.previous ? `; the replaced database is ${r.previous}` : ''}. Start tmkit serve to use it.\n`,
      );
    });
}
