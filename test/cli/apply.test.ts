import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TmkitClient } from '../../src/client';
import type { DocumentInput } from '../../src/core/model/types';
import { TOKEN, type Harness } from '../runtime/api/harness';
import { deployMainSample, MAIN, PR, type DeployedSample } from './sample-server';
import { BIN, REPO, tmkit } from './run';

/**
 * `tmkit apply` (the real CLI process) against a real management API: a saved plan is executed as reviewed
 * or refused when stale; a document is planned (deletes included), confirmed and executed; progress per
 * step; a failure mid-way names what was and was not applied; a second apply is a no-op.
 */
let h: Harness;
let client: TmkitClient;
let dir: string;
let sample: DeployedSample;

beforeEach(async () => {
  sample = await deployMainSample('tmkit-apply-cli-');
  ({ h, client, dir } = sample);
});

afterEach(() => sample.close());

const server = () => ['--server', h.base, '--token', TOKEN];
const progress = (stdout: string): string[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('['))
    .map((l) => l.replace(/ {2}ETag .*$/, ''));
const names = async (): Promise<string[]> => (await client.listProfiles()).profiles.map((p) => p.name).sort();

async function planFile(doc = PR): Promise<string> {
  const out = join(dir, 'plan.json');
  const r = await tmkit(['plan', doc, ...server(), '--out', out, '--no-preview']);
  expect(r.code).toBe(0);
  return out;
}

test('apply plan.json executes the reviewed plan step by step; planning again finds nothing to do', async () => {
  const r = await tmkit(['apply', await planFile(), ...server()]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('(stack "web": 1 to add, 2 to change, 1 to replace, 1 to destroy)');
  expect(progress(r.stdout)).toEqual([
    '[1/5] PUT contoso-api (create) ... ok',
    '[2/5] PUT contoso-geo (update) ... ok',
    '[3/5] PUT contoso-web (update) ... ok',
    '[4/5] PUT status (replace) ... ok',
    '[5/5] DELETE old-api (delete) ... ok',
  ]);
  expect(r.stdout).toContain('Apply complete: 1 added, 2 changed, 1 replaced, 1 destroyed');
  expect(await names()).toEqual(['contoso-api', 'contoso-eu', 'contoso-geo', 'contoso-web', 'status']);
  expect((await client.getProfile('status')).profile.dnsConfig.relativeName).toBe('status-v2');
  const again = await tmkit(['plan', PR, ...server(), '--detailed-exitcode', '--no-preview']);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');
});

test('a stale plan is refused, says who changed what, and writes nothing', async () => {
  const file = await planFile();
  const cur = await client.getProfile('contoso-web');
  await client.putProfile({ ...cur.profile, dnsConfig: { ...cur.profile.dnsConfig, ttl: 20 } }, { stack: 'web', ifMatch: cur.etag });
  const before = await client.listProfiles();
  const r = await tmkit(['apply', file, ...server()]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/the plan is stale, nothing was applied: profile contoso-web changed \(ETag .* → .*\) since the plan was made/);
  expect(r.stderr).toContain('run `tmkit plan` again');
  expect(progress(r.stdout)).toEqual([]);
  expect(await client.listProfiles()).toEqual(before);
});

test('apply FILE deletes a profile of the stack that left the document; a second apply plans no changes', async () => {
  const doc = JSON.parse(readFileSync(MAIN, 'utf8')) as DocumentInput;
  writeFileSync(join(dir, 'smaller.json'), JSON.stringify({ ...doc, profiles: doc.profiles.filter((p) => p.name !== 'old-api') }));
  const r = await tmkit(['apply', join(dir, 'smaller.json'), '--yes', '--detailed-exitcode', ...server()]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(2);
  expect(r.stdout).toContain('- profile old-api (destroy');
  expect(r.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 1 to destroy.');
  expect(progress(r.stdout)).toEqual(['[1/1] DELETE old-api (delete) ... ok']);
  expect(await client.findProfile('old-api')).toBeUndefined();
  const revision = (await client.healthz()).revision;

  const again = await tmkit(['apply', join(dir, 'smaller.json'), '--yes', '--detailed-exitcode', ...server()]);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');
  expect(again.stdout).toContain('nothing to apply');
  expect((await client.healthz()).revision).toBe(revision);
});

test('other stacks are never touched by an apply', async () => {
  writeFileSync(join(dir, 'other.json'), JSON.stringify({ apiVersion: 'tmkit/v1', stack: 'other', profiles: [] }));
  const r = await tmkit(['apply', join(dir, 'other.json'), '--yes', ...server()]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('No changes.');
  expect(await names()).toEqual(['contoso-eu', 'contoso-geo', 'contoso-web', 'old-api', 'status']);
});

test('a failure mid-way says exactly which steps were applied and which were not', async () => {
  const file = await planFile();
  const plan = JSON.parse(readFileSync(file, 'utf8')) as {
    changes: Array<{ profile: string; after?: { endpoints: Array<{ weight?: number }> } }>;
  };
  // Step 3 (PUT contoso-web) carries a body the server refuses (weight out of range).
  plan.changes.find((c) => c.profile === 'contoso-web')!.after!.endpoints[0]!.weight = 5000;
  writeFileSync(file, JSON.stringify(plan));
  const r = await tmkit(['apply', file, ...server()]);
  expect(r.code).toBe(1);
  expect(progress(r.stdout)).toEqual([
    '[1/5] PUT contoso-api (create) ... ok',
    '[2/5] PUT contoso-geo (update) ... ok',
    '[3/5] PUT contoso-web (update) ... failed: PUT /v1/profiles/contoso-web?stack=web failed with HTTP 400:',
  ]);
  expect(r.stdout).toMatch(/\n {6}.*WEIGHT_RANGE/);
  expect(r.stderr).toContain('apply failed at step 3/5 (PUT contoso-web (update))');
  // One casing rule for messages on stderr: `tmkit: ` and a lower-case word, continuation lines indented.
  for (const line of r.stderr.split('\n').filter((l) => l !== '')) expect(line).toMatch(/^(tmkit: [a-z]|\s)/);
  expect(r.stderr).toContain('applied (2): PUT contoso-api (create), PUT contoso-geo (update)');
  expect(r.stderr).toContain('not applied (3): PUT contoso-web (update) [failed], PUT status (replace), DELETE old-api (delete)');
  expect(await client.findProfile('contoso-api')).toBeDefined();
  expect(await client.findProfile('old-api')).toBeDefined();
});

test.each([
  ['an unsupported formatVersion', { kind: 'tmkit-plan', formatVersion: 99 }, /formatVersion 99 is not supported/],
  [
    'a plan with errors',
    {
      kind: 'tmkit-plan',
      formatVersion: 1,
      stack: 'web',
      summary: {},
      changes: [],
      steps: [],
      errors: [{ severity: 'error', code: 'PLAN_ORDER_CYCLE', path: 'profiles[a]', message: 'cycle' }],
    },
    /cannot be applied/,
  ],
])('a plan file that cannot be applied is refused (%s)', async (_n, content, message) => {
  writeFileSync(join(dir, 'p.json'), JSON.stringify(content));
  const before = await client.listProfiles();
  const r = await tmkit(['apply', join(dir, 'p.json'), ...server()]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(await client.listProfiles()).toEqual(before);
});

/** Runs `tmkit apply` with a pseudo-terminal (python3's pty) and answers the confirmation question. */
function onTerminal(args: string[], answer: string): Promise<{ code: number | null; output: string }> {
  const script = [
    'import os, pty, select, sys',
    'answer, argv = sys.argv[1], sys.argv[2:]',
    'pid, fd = pty.fork()',
    'if pid == 0:',
    '    os.execv(argv[0], argv)',
    'out, sent = b"", False',
    'while True:',
    '    r, _, _ = select.select([fd], [], [], 120)',
    '    if not r: break',
    '    try: data = os.read(fd, 4096)',
    '    except OSError: break',
    '    if not data: break',
    '    out += data',
    '    if not sent and b"will be accepted" in out:',
    '        os.write(fd, (answer + "\\n").encode()); sent = True',
    '_, status = os.waitpid(pid, 0)',
    'sys.stdout.buffer.write(out)',
    'sys.exit(os.waitstatus_to_exitcode(status))',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', script, answer, process.execPath, BIN, ...args], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test.each([
  ['yes', 0, false],
  ['no', 1, true],
])('on a terminal apply FILE asks first (answer %s)', async (answer, code, oldApiStays) => {
  const doc = JSON.parse(readFileSync(MAIN, 'utf8')) as DocumentInput;
  writeFileSync(join(dir, 'smaller.json'), JSON.stringify({ ...doc, profiles: doc.profiles.filter((p) => p.name !== 'old-api') }));
  const r = await onTerminal(['apply', join(dir, 'smaller.json'), '--no-color', ...server()], answer);
  expect(r.output).toContain('Apply these changes to');
  expect(r.code).toBe(code);
  expect(r.output).toContain(oldApiStays ? 'tmkit: apply cancelled; nothing was applied' : '[1/1] DELETE old-api (delete) ... ok');
  expect((await client.findProfile('old-api')) !== undefined).toBe(oldApiStays);
});

/**
 * `tmkit apply doc.json > log` on a terminal (issue 16 item 8): stdout is a file, stdin and stderr are the
 * terminal. The question must reach the terminal (stderr), not the log, or apply waits for an answer to a
 * question nobody sees. python3 gives the child a pty on stdin and stderr and a pipe on stdout.
 */
test('with stdout redirected, the confirmation question is asked on the terminal (stderr); the plan goes to stdout', async () => {
  const doc = JSON.parse(readFileSync(MAIN, 'utf8')) as DocumentInput;
  writeFileSync(join(dir, 'smaller.json'), JSON.stringify({ ...doc, profiles: doc.profiles.filter((p) => p.name !== 'old-api') }));
  const script = [
    'import os, select, subprocess, sys, time',
    'master, slave = os.openpty()',
    'p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=slave)',
    'os.close(slave)',
    'tty, end, sent = b"", time.time() + 30, False',
    'while time.time() < end and p.poll() is None:',
    '    r, _, _ = select.select([master], [], [], 0.2)',
    '    if r:',
    '        try: tty += os.read(master, 4096)',
    '        except OSError: break',
    '    if not sent and b"will be accepted" in tty:',
    '        os.write(master, b"yes\\n"); sent = True',
    'if p.poll() is None: p.kill()',
    'out = p.stdout.read()',
    'code = p.wait()',
    'sys.stdout.write(str(code) + "\\n" + ("ASKED" if sent else "NOT ASKED") + "\\n" + out.decode())',
  ].join('\n');
  const r = await new Promise<string>((resolve, reject) => {
    const child = spawn('python3', ['-c', script, process.execPath, BIN, 'apply', join(dir, 'smaller.json'), '--no-color', ...server()], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
  const [code, asked, ...stdout] = r.split('\n');
  expect(asked).toBe('ASKED');
  expect(code).toBe('0');
  expect(stdout.join('\n')).toContain('- profile old-api (destroy');
  expect(stdout.join('\n')).not.toContain('will be accepted');
  expect(stdout.join('\n')).toContain('[1/1] DELETE old-api (delete) ... ok');
  expect(await client.findProfile('old-api')).toBeUndefined();
});
