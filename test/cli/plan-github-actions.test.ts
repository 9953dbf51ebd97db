import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tmkit } from './run';

/**
 * examples/github-actions: the rendering the workflow posts (not GitHub itself). The test runs the exact
 * `tmkit plan` flags of the workflow on the sample documents, then runs the workflow's github-script step
 * against a recording stand-in for the GitHub API, to check the comment is created once and then updated.
 */
const DIR = join(REPO, 'examples/github-actions');
const workflow = readFileSync(join(DIR, 'tmkit-plan.yml'), 'utf8');

function planFlags(): string[] {
  const line = workflow.split('\n').find((l) => l.includes('npx tmkit plan '))!;
  expect(line).toBeDefined();
  const tail = line.slice(line.indexOf('npx tmkit plan ') + 'npx tmkit plan '.length).split(' > ')[0]!;
  return tail
    .split(/\s+/)
    .filter((t) => t !== '' && t !== '"$DOCUMENT"' && t !== '$TMKIT_PLAN_STATE')
    .map((t) => (t === '"$MAX_FAILOVER_SECONDS"' ? /MAX_FAILOVER_SECONDS: '(\d+)'/.exec(workflow)![1]! : t));
}

function githubScript(): string {
  const start = workflow.indexOf('script: |');
  const lines = workflow.slice(start).split('\n').slice(1);
  const indent = /^\s*/.exec(lines[0]!)![0]!.length;
  const body: string[] = [];
  for (const l of lines) {
    if (l.trim() !== '' && /^\s*/.exec(l)![0]!.length < indent) break;
    body.push(l.slice(indent));
  }
  return body.join('\n');
}

test("the workflow's plan command renders a markdown comment within GitHub's limit", async () => {
  const flags = planFlags();
  expect(flags).toEqual(
    expect.arrayContaining(['--format', 'markdown', '--detailed-exitcode', '--out', 'plan.json', '--max-failover-seconds', '300']),
  );
  const out = flags.indexOf('--out');
  flags.splice(out, 2); // the test does not need the artifact
  const r = await tmkit(['plan', join(DIR, 'sample/pr.tmkit.out.json'), '--deployed', join(DIR, 'sample/main.tmkit.out.json'), ...flags]);
  // The sample's status page (TTL 300 s) needs 430 s to fail over: above the workflow's 300 s gate.
  expect(r.code).toBe(1);
  expect(r.stdout.startsWith('<!-- tmkit-plan -->\n')).toBe(true);
  expect(r.stdout.length).toBeLessThanOrEqual(65536);
  expect(r.stdout).toContain('**Plan: 1 to add, 2 to change, 1 to replace, 1 to destroy.**');
  expect(r.stdout).toContain('> 1 profile exceeds the failover limit of 300 s: `status` (430 s)');
  // Without the gate: exit 2 (changes).
  const i = flags.indexOf('--max-failover-seconds');
  flags.splice(i, 2);
  const ungated = await tmkit([
    'plan',
    join(DIR, 'sample/pr.tmkit.out.json'),
    '--deployed',
    join(DIR, 'sample/main.tmkit.out.json'),
    ...flags,
  ]);
  expect(ungated.code).toBe(2);
  expect(ungated.stdout).toBe(r.stdout.replace(/> \[!CAUTION\]\n> 1 profile exceeds[^\n]*\n\n/, '').replace(/\*\*430 s ⚠️\*\*/g, '430 s'));
});

test('the comment step creates the comment once, then updates it in place', async () => {
  const script = githubScript();
  expect(script).toContain('<!-- tmkit-plan -->');
  const calls: string[] = [];
  const stored: Array<{ id: number; user: { type: string }; body: string }> = [{ id: 1, user: { type: 'User' }, body: 'LGTM' }];
  const github = {
    paginate: async (fn: (a: object) => Promise<{ data: unknown[] }>, args: object) => (await fn(args)).data,
    rest: {
      issues: {
        listComments: async () => ({ data: stored.map((c) => ({ ...c })) }),
        createComment: async (a: { body: string; issue_number: number }) => {
          calls.push(`create #${a.issue_number}`);
          stored.push({ id: stored.length + 1, user: { type: 'Bot' }, body: a.body });
        },
        updateComment: async (a: { comment_id: number; body: string }) => {
          calls.push(`update ${a.comment_id}`);
          stored.find((c) => c.id === a.comment_id)!.body = a.body;
        },
      },
    },
  };
  const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 42 } };
  let planMd = '<!-- tmkit-plan -->\nfirst';
  const fakeRequire = (m: string) => {
    expect(m).toBe('fs');
    return { readFileSync: () => planMd };
  };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...a: string[]) => (...v: unknown[]) => Promise<void>;
  const run = new AsyncFunction('require', 'github', 'context', script);
  await run(fakeRequire, github, context);
  planMd = '<!-- tmkit-plan -->\nsecond';
  await run(fakeRequire, github, context);
  expect(calls).toEqual(['create #42', 'update 2']);
  expect(stored.map((c) => c.body)).toEqual(['LGTM', '<!-- tmkit-plan -->\nsecond']);
});
