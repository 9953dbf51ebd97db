/**
 * SLOW (builds an image: about 4 min cold, 1-2 min when only the sources changed, seconds when nothing did).
 * Issue 39 item 8: deploy/container/Containerfile, built and run with podman as a user would run it:
 * `--cap-drop=ALL --cap-add=NET_BIND_SERVICE`, a named volume for the state, DNS published on a loopback port.
 * It answers the zone's SOA over UDP and TCP, every process in it runs as uid 10001 with no capability but
 * NET_BIND_SERVICE, the image's HEALTHCHECK (/readyz) passes, the published API still wants its token, and
 * `podman stop` stops it cleanly. Without NET_BIND_SERVICE the start fails with EACCES on :53.
 *
 * The base is local (scripts/container-base.sh: debootstrap'd bookworm + Node from the npm registry), built
 * once and cached; no public image can be pulled here. Podman is required: without it this fails, it does not
 * skip. Everything it makes is named tmkit-test-<pid> and removed after; the build stage stays tagged
 * localhost/tmkit-test-build:cache (its layers are the cache of the next run; the previous one is removed).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freeDnsPort } from '../../src/runtime/dns/port-probe';
import { freePort } from '../support/ports';
import { waitFor } from '../support/wait';

jest.setTimeout(20 * 60_000);

const REPO = join(__dirname, '../..');
const CONTAINERFILE = join(REPO, 'deploy/container/Containerfile');
const NAME = `tmkit-test-${process.pid}`;
const IMAGE = `localhost/${NAME}:latest`;
const BUILD_CACHE = 'localhost/tmkit-test-build:cache';
const VOLUME = `${NAME}-state`;
/**
 * Explicit limits: on these machines runc cannot set podman's default RLIMIT_NPROC ("error setting rlimit
 * type 6: operation not permitted") nor a NOFILE above the host's hard limit.
 */
const ULIMITS = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];
/** Debian's runc: Debian's crun fails here ("cgroups in hybrid mode"), and podman prefers crun when both are there. */
const RUNTIME = ['--runtime', 'runc'];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `cmd args`, its output collected; with `progress`, stderr is also copied to ours as it comes (build logs). */
function sh(cmd: string, args: string[], opts: { progress?: boolean; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const t = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (opts.progress) process.stderr.write(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (opts.progress) process.stderr.write(d);
    });
    child.on('error', (err) => {
      clearTimeout(t);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

async function must(cmd: string, args: string[], opts: { progress?: boolean; timeoutMs?: number } = {}): Promise<string> {
  const r = await sh(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  return r.stdout;
}

const podman = (args: string[], opts: { progress?: boolean; timeoutMs?: number } = {}) => must('podman', args, opts);

/** The CA bundle npm trusts here, for a build behind a TLS-intercepting proxy (the Containerfile's npm-ca secret). */
async function caBundle(): Promise<string | undefined> {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra && existsSync(extra)) return extra;
  const r = await sh('npm', ['config', 'get', 'cafile']);
  const file = r.stdout.trim();
  return r.code === 0 && file.startsWith('/') && existsSync(file) ? file : undefined;
}

async function imageId(ref: string): Promise<string | undefined> {
  const r = await sh('podman', ['image', 'inspect', '--format', '{{.Id}}', ref]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** `dig` over UDP or TCP: the status from the header, and the answer section's records without name, TTL and class. */
async function dig(port: number, name: string, type: string, tcp: boolean): Promise<{ status: string; answer: string[] }> {
  const r = await sh('dig', [
    '@127.0.0.1',
    '-p',
    String(port),
    name,
    type,
    tcp ? '+tcp' : '+notcp',
    '+time=2',
    '+tries=1',
    '+noall',
    '+comments',
    '+answer',
  ]);
  const status = /status: (\w+)/.exec(r.stdout)?.[1] ?? `no answer (dig exited ${r.code}): ${r.stdout}${r.stderr}`;
  const answer = r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(';'))
    .map((l) => l.trim().split(/\s+/).slice(3).join(' '));
  return { status, answer };
}

let image = '';
const started: string[] = [];

beforeAll(async () => {
  const version = await sh('podman', ['--version']).catch((err: Error) => ({ code: -1, stdout: '', stderr: err.message }));
  if (version.code !== 0)
    throw new Error(
      `podman is not installed (${version.stderr.trim()}): the container test needs podman, runc and debootstrap ` +
        '(Debian: apt-get install podman runc debootstrap)',
    );
  const t0 = Date.now();
  const base = (
    await must('bash', ['scripts/container-base.sh'], { progress: true, timeoutMs: 15 * 60_000 }).catch((err: Error) => {
      throw new Error(`scripts/container-base.sh failed: ${err.message}`);
    })
  )
    .trim()
    .split('\n')
    .pop()!;
  process.stderr.write(`container test: base ${base} (${Math.round((Date.now() - t0) / 1000)} s)\n`);

  const ca = await caBundle();
  const common = [
    'build',
    ...RUNTIME,
    '--format',
    'docker', // keeps the HEALTHCHECK (the OCI format has none)
    '--build-arg',
    `BASE=${base}`,
    ...(ca ? ['--secret', `id=npm-ca,src=${ca}`] : []),
    '-f',
    CONTAINERFILE,
  ];
  // Then the build stage alone under a fixed tag (all cached by now, seconds): its layers (npm ci above all)
  // are the next run's cache, and the stage it replaces is removed, so that changed sources do not pile up a
  // 1 GB build stage per run.
  const t1 = Date.now();
  await podman([...common, '-t', IMAGE, REPO], { progress: true, timeoutMs: 15 * 60_000 });
  const previous = await imageId(BUILD_CACHE);
  await podman([...common, '--target', 'build', '-t', BUILD_CACHE, REPO], { timeoutMs: 10 * 60_000 });
  if (previous !== undefined && previous !== (await imageId(BUILD_CACHE))) await sh('podman', ['image', 'rm', previous]);
  image = IMAGE;
  const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE])).trim());
  process.stderr.write(`container test: built ${IMAGE} in ${Math.round((Date.now() - t1) / 1000)} s, ${Math.round(size / 1e6)} MB\n`);
});

afterAll(async () => {
  for (const c of started) await sh('podman', ['rm', '--force', '--volumes', '--time', '2', c]);
  await sh('podman', ['volume', 'rm', '--force', VOLUME]);
  if (image !== '') await sh('podman', ['image', 'rm', image]);
});

test('uid 10001 with only NET_BIND_SERVICE serves the zone on :53 (UDP and TCP); healthy; the API wants its token; stops cleanly', async () => {
  const dnsPort = await freeDnsPort('127.0.0.1');
  const apiPort = await freePort('127.0.0.1');
  const name = `${NAME}-serve`;
  started.push(name);
  await podman(['volume', 'create', VOLUME]);
  await podman([
    'run',
    '--detach',
    '--name',
    name,
    ...RUNTIME,
    ...ULIMITS,
    '--cap-drop=ALL',
    '--cap-add=NET_BIND_SERVICE',
    '--volume',
    `${VOLUME}:/var/lib/tmkit`,
    '--publish',
    `127.0.0.1:${dnsPort}:53/udp`,
    '--publish',
    `127.0.0.1:${dnsPort}:53/tcp`,
    '--publish',
    `127.0.0.1:${apiPort}:5380/tcp`,
    image,
    // More `tmkit serve` flags after the image name, as docs/production.md shows.
    '--zone',
    'container.test',
  ]);
  const logs = async () => {
    const r = await sh('podman', ['logs', name]);
    return r.stdout + r.stderr;
  };
  const banner = await waitFor(async () => ((await logs()).includes('  API  ') ? logs() : false), {
    what: 'the listen banner in podman logs',
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  expect(banner).toContain('tmkit serve: zone container.test, 0 profiles, state in /var/lib/tmkit/tmkit.db');
  expect(banner).toContain('DNS  UDP+TCP 0.0.0.0:53');
  expect(banner).toContain('token in /var/lib/tmkit/token (mode 0600, generated now)');

  for (const tcp of [false, true]) {
    const r = await dig(dnsPort, 'container.test', 'SOA', tcp);
    expect({ tcp, status: r.status }).toEqual({ tcp, status: 'NOERROR' });
    expect(r.answer).toEqual([expect.stringMatching(/^SOA ns1\.container\.test\. hostmaster\.container\.test\. \d+ /)]);
  }

  // Every process (the primary and its DNS workers) as uid/gid 10001, holding NET_BIND_SERVICE (bit 10) and
  // nothing else, in every set: podman puts an added capability in the ambient set of a non-root user.
  const status = await podman(['exec', name, 'cat', '/proc/1/status']);
  expect(/^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/)).toEqual(['10001', '10001', '10001', '10001']);
  expect(/^Gid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/)).toEqual(['10001', '10001', '10001', '10001']);
  for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'])
    expect({ set, value: new RegExp(`^${set}:\\s+(\\w+)$`, 'm').exec(status)?.[1] }).toEqual({ set, value: '0000000000000400' });
  const top = (await podman(['top', name, 'huser', 'pid', 'args'])).trim().split('\n').slice(1);
  expect(top.length).toBeGreaterThanOrEqual(1);
  for (const line of top) expect(line).toMatch(/^10001\s/);

  // The image's HEALTHCHECK (node's fetch of /readyz), run now rather than waiting for its interval.
  await waitFor(async () => (await sh('podman', ['healthcheck', 'run', name])).code === 0, {
    what: 'podman healthcheck run to pass',
    timeoutMs: 30_000,
    intervalMs: 500,
  });
  // The API listens on 0.0.0.0 in the container so that it can be published; the token is still required.
  const api = `http://127.0.0.1:${apiPort}`;
  expect((await fetch(`${api}/readyz`)).status).toBe(200);
  expect((await fetch(`${api}/v1/profiles`)).status).toBe(401);
  const token = (await podman(['exec', name, 'cat', '/var/lib/tmkit/token'])).trim();
  expect((await fetch(`${api}/v1/profiles`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  // The CLI in the image finds the token through TMKIT_STATE_DIR.
  expect(await podman(['exec', name, 'tmkit', 'status'])).toContain('No profiles on http://127.0.0.1:5380');

  // SIGTERM to PID 1 (node itself): a clean stop, exit 0, well inside podman's 10 s.
  await podman(['stop', '--time', '10', name]);
  expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', name])).trim()).toBe('0');
  expect(await logs()).toContain('tmkit serve: stopped');
});

test('without NET_BIND_SERVICE (--cap-drop=ALL) the start fails: EACCES on :53', async () => {
  const name = `${NAME}-nocap`;
  started.push(name);
  const r = await sh('podman', ['run', '--name', name, ...RUNTIME, ...ULIMITS, '--cap-drop=ALL', image], { timeoutMs: 60_000 });
  expect(r.code).toBe(1);
  // The bind's own error and what to do about it (not "in use": src/runtime/dns/port-probe.ts passes EACCES on).
  expect(r.stderr).toMatch(/tmkit: serve: bind EACCES 0\.0\.0\.0:53: .*CAP_NET_BIND_SERVICE.*--cap-add=NET_BIND_SERVICE/);
});
