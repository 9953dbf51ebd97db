/**
 * `tmkit serve --user NAME[:GROUP]` on the CLI's side: the refusals of runtime/privileges.ts as CLI errors
 * (exit 2 for the flag, 1 for the machine), and what `--workers` becomes under it.
 */
import { PrivilegeError, dropPlan, resolveUser, type TargetUser } from '../../runtime/privileges';
import { CliError, EXIT_FAILED, EXIT_USAGE } from '../errors';

/** Runs `fn`, turning a PrivilegeError into the CliError that says it. */
export function asCliError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PrivilegeError) throw new CliError(`serve ${err.message}`, err.kind === 'usage' ? EXIT_USAGE : EXIT_FAILED);
    throw err;
  }
}

/**
 * The user to become after binding, or undefined: no `--user`, or this process already runs as that user
 * (nothing to drop). Another non-root user: exit 2.
 */
export function userToBecome(spec: string | undefined): TargetUser | undefined {
  if (spec === undefined) return undefined;
  return asCliError(() => {
    const who = resolveUser(spec);
    return dropPlan(who, spec) === 'drop' ? who : undefined;
  });
}

/**
 * `--workers` when the process drops root: the workers share the primary's sockets (bound while it is root),
 * never per-worker SO_REUSEPORT sockets. A worker replaced after the drop runs as the user: it could not bind
 * a port below 1024 again, and the kernel keeps a reuseport group to sockets of one owner, so it could not join
 * the group the root-owned sockets of its siblings make either. `auto` is then 1, as wherever sockets are
 * shared (reuse-port.ts autoWorkers).
 */
export function workersUnderUser(w: number | 'auto'): { workers: number; notice?: string } {
  const why =
    'with --user, DNS workers share the sockets the primary bound as root (a socket per worker: bind with CAP_NET_BIND_SERVICE instead of --user, as deploy/systemd/tmkit.service does)';
  if (w === 'auto') return { workers: 1, notice: `DNS in the main process (--workers auto): ${why}` };
  return w > 1 ? { workers: w, notice: `workers share one socket: ${why}` } : { workers: w };
}
