/**
 * Long-running commands (`serve`, `dns`, `status --watch`) started through npm (`npx tmkit serve`, `npm exec`,
 * `npm run`) follow npm's process. npm runs the bin in a shell and, on SIGTERM, passes the signal to that
 * shell only; the shell dies without passing it on, so `kill <npx pid>` used to leave the node process
 * running with its ports and state dir. Here, when npm's process is gone, this process sends itself SIGTERM
 * and stops exactly as on a direct SIGTERM (serve drains and saves its monitor state).
 *
 * Only under npm (it sets `npm_command`): a supervisor's child, or `nohup tmkit serve &` from a shell that
 * then exits, keeps running as before.
 */
import { readFileSync } from 'node:fs';

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh']);

/** `/proc/<pid>/stat`: its command name, parent pid and start time; undefined when there is no such process. */
function procStat(pid: number): { comm: string; state: string; ppid: number; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ... field 22 starttime; comm may hold spaces and parentheses: split after the last ')'.
    const close = stat.lastIndexOf(')');
    const rest = stat.slice(close + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), state: rest[0] ?? '', ppid: Number(rest[1]), start: rest[19] ?? '' };
  } catch {
    return undefined;
  }
}

/**
 * The process to follow: the nearest ancestor that is not a shell (npm's own process), with its start time
 * so that a reused pid does not count as alive. Without /proc (not Linux): the parent, compared by pid.
 */
function watchedAncestor(): { pid: number; start: string } | undefined {
  let pid = process.ppid;
  for (let hops = 0; hops < 4 && pid > 1; hops++) {
    const st = procStat(pid);
    if (!st) return hops === 0 ? { pid, start: '' } : undefined;
    if (!SHELLS.has(st.comm)) return { pid, start: st.start };
    pid = st.ppid;
  }
  return undefined;
}

/**
 * When started by npm, polls npm's process every `intervalMs` (an unref'd timer: it never keeps the process
 * alive) and sends this process SIGTERM once it is gone. Returns a function that stops watching.
 */
export function followNpmParent(env: NodeJS.ProcessEnv = process.env, intervalMs = 500): () => void {
  if (!env.npm_command) return () => undefined;
  const watched = watchedAncestor();
  if (!watched) return () => undefined;
  const parentAtStart = process.ppid;
  const gone = (): boolean => {
    if (watched.start === '') return process.ppid !== parentAtStart;
    const st = procStat(watched.pid);
    return st === undefined || st.start !== watched.start || st.state === 'Z';
  };
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
