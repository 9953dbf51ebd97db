/**
 * docs/limitations.md is a user's page, and true (issue 40 item 1). It fails when a line:
 * - says a feature is missing that the built CLI's `--help` (of any command) or the docs offer: a maintained
 *   table of claims, each with the evidence that would contradict it (`--dnssec` in `serve --help` against
 *   "No DNSSEC");
 * - names a `tmkit` command or `--flag` that does not exist (or says "no `--flag`" of one that does);
 * - points at planned work (`issue N, item M`) that the table cannot watch, or whose feature now exists;
 * - talks about the maintainers' own machines (those facts go to docs/development.md);
 * - links to a page or heading that is not there.
 * The same checks run on the lines the page held before this test (they must all be caught).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_PROBE_USER_AGENT } from '../../src/runtime/monitor/probe';

const REPO = join(__dirname, '../..');
const BIN = join(REPO, 'dist/src/cli/bin.js');
const PAGE = join(REPO, 'docs/limitations.md');
const run = promisify(execFile);

const read = (rel: string): string => readFileSync(join(REPO, rel), 'utf8');

// ------------------------------------------------------------------------------------------ the built CLI

/** Every command path of the built CLI (`''` is `tmkit` itself) with its `--help` text. */
type Help = Map<string, string>;

/**
 * Every command's `--help` text from the built CLI (dist/): one node process builds the program from
 * dist/src/cli/main.js and prints what `--help` prints for each command (commander's helpInformation), so
 * the test costs one process, not one per command (a few seconds each on a loaded machine).
 */
async function collectHelp(): Promise<Help> {
  const script = `
    const { buildProgram } = require(${JSON.stringify(join(REPO, 'dist/src/cli/main.js'))});
    const out = {};
    const walk = (cmd, path) => {
      out[path.join(' ')] = cmd.helpInformation();
      for (const c of cmd.commands) if (c.name() !== 'help') walk(c, [...path, c.name()]);
    };
    walk(buildProgram(), []);
    process.stdout.write(JSON.stringify(out));`;
  const env = { ...process.env, NO_COLOR: '1' };
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: REPO, env, maxBuffer: 16 * 1024 * 1024 });
  return new Map(Object.entries(JSON.parse(stdout) as Record<string, string>));
}

/** What the built `tmkit` prints for `--help` (to check that collectHelp reads the same CLI). */
async function binHelp(path: string[]): Promise<string> {
  return (await run(process.execPath, [BIN, ...path, '--help'], { cwd: REPO, env: { ...process.env, NO_COLOR: '1' } })).stdout;
}

const flagsIn = (text: string): Set<string> => new Set(text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? []);

// ------------------------------------------------------------------------------------- claims and evidence

/** What would show a claim of the page false. */
type Evidence =
  | { command: string } // `tmkit <command>` exists
  | { flag: string; of?: string } // a flag in that command's --help (any command's without `of`)
  | { doc: string; has: RegExp } // a file of the repository says so
  | { doc: string; lacks: RegExp } // a file of the repository no longer says the thing the claim rests on
  | { holds: () => boolean; what: string }; // a fact of the code

function contradicts(e: Evidence, help: Help): string | undefined {
  if ('command' in e) return help.has(e.command) ? `\`tmkit ${e.command}\` exists` : undefined;
  if ('flag' in e) {
    const texts = e.of === undefined ? [...help.values()] : [help.get(e.of)];
    if (texts[0] === undefined) throw new Error(`the table names \`tmkit ${e.of}\`, which the CLI does not have: fix the table`);
    return texts.some((t) => flagsIn(t!).has(e.flag)) ? `\`tmkit ${e.of ?? '…'} --help\` offers ${e.flag}` : undefined;
  }
  if ('has' in e) return e.has.test(read(e.doc)) ? `${e.doc} says ${e.has}` : undefined;
  if ('lacks' in e) return e.lacks.test(read(e.doc)) ? undefined : `${e.doc} no longer says ${e.lacks}`;
  return e.holds() ? e.what : undefined;
}

/**
 * Claims a line may make, and what would make each false. Add a row when a line says something is missing
 * that a flag, command or doc would one day offer.
 */
const CLAIMS: Array<{ claim: RegExp; evidence: Evidence[] }> = [
  { claim: /\bno DNSSEC\b|DNSSEC is not (supported|available)/i, evidence: [{ flag: '--dnssec', of: 'serve' }] },
  {
    claim: /(do not|don't|never|cannot) (validate|check) (their |the |server )?certificates/i,
    evidence: [{ doc: 'docs/health.md', has: /\| `certificateValidation` \| `Enabled`/ }],
  },
  {
    claim: /no push from the server|no (live )?event stream|(server|API) (does not|cannot) push/i,
    evidence: [{ doc: 'docs/api.md', has: /`GET \/v1\/events`/ }],
  },
  {
    claim: /no (probe )?User-Agent|User-Agent (is not|cannot be) (sent|set|configured)/i,
    evidence: [{ holds: () => DEFAULT_PROBE_USER_AGENT.length > 0, what: `probes send User-Agent: ${DEFAULT_PROBE_USER_AGENT}` }],
  },
  { claim: /\bno zone transfers?\b/i, evidence: [{ flag: '--allow-transfer' }, { flag: '--axfr' }, { flag: '--xfr' }] },
  { claim: /\bno DNS over (TLS|HTTPS)\b/i, evidence: [{ flag: '--dot' }, { flag: '--doh' }, { flag: '--dns-tls' }] },
  {
    claim: /\bno per-query log|per-query logging\b/i,
    evidence: [
      { flag: '--dnstap', of: 'serve' },
      { flag: '--query-log', of: 'serve' },
    ],
  },
  {
    claim: /`?plan`? and `?preview`? use the distance model only|`?plan`?\/`?preview`? use the distance model only/i,
    evidence: [
      { flag: '--latency-table', of: 'plan' },
      { flag: '--latency-table', of: 'preview' },
    ],
  },
  {
    claim: /management API has no TLS/i,
    evidence: [
      { flag: '--api-tls', of: 'serve' },
      { flag: '--api-cert', of: 'serve' },
      { flag: '--tls-cert', of: 'serve' },
    ],
  },
  // if --watch followed /v1/events, its --interval ("how often --watch polls") would go
  { claim: /status --watch`? polls/i, evidence: [{ doc: 'src/cli/commands/status.ts', lacks: /how often --watch polls/ }] },
  {
    claim: /ids carry no subscription/i,
    evidence: [
      { flag: '--subscription', of: 'get' },
      { flag: '--resource-group', of: 'get' },
    ],
  },
  {
    claim: /validation warnings .* (are )?not shown/i,
    evidence: [{ doc: 'docs/pulumi.md', has: /warnings on the resource/ }],
  },
  { claim: /\bno provider functions\b/i, evidence: [{ doc: 'docs/terraform.md', has: /provider::tmkit::/ }] },
  { claim: /\bno ephemeral resources\b/i, evidence: [{ doc: 'providers/terraform/src/server.ts', lacks: /ephemeral_resources: \[\]/ }] },
  {
    claim: /router does not support MoveResourceState/i,
    evidence: [{ doc: 'providers/terraform/src/provider.ts', lacks: /moveResourceState: false/ }],
  },
  {
    claim: /router does not expose private state/i,
    evidence: [{ doc: 'providers/terraform/src/provider.ts', has: /export class WithPrivate\b/ }],
  },
  { claim: /no functions \(`getProfile`\)/i, evidence: [{ doc: 'src/pulumi/index.ts', has: /\bgetProfile\b/ }] },
  { claim: /SDKs? for Node\.js only/i, evidence: [{ doc: 'docs/pulumi.md', has: /Pulumi YAML|pulumi package add/ }] },
];

/** Planned work the page points at (`issue N, item M`), and what shows it done. */
const TRACKED: Record<string, Evidence[]> = {
  '41.2': [{ doc: 'docs/terraform.md', has: /provider::tmkit::/ }], // provider functions
  '41.5': [{ doc: 'docs/pulumi.md', has: /Pulumi YAML|pulumi package add/ }], // Pulumi beyond Node.js
  '42.1': [{ flag: '--dnstap', of: 'serve' }], // dnstap
  '42.2': [{ command: 'decisions' }], // the decision log
  '42.4': [
    { doc: 'docs/health.md', has: /performanceLatency/ },
    { doc: 'docs/routing.md', has: /performanceLatency/ },
  ], // measured latency
};

/** Flags a line may name that are not tmkit's (another tool's), with whose they are. */
const FOREIGN_FLAGS: Record<string, string> = { '--health-cmd': 'podman run' };

/** Words that make a line about the maintainers' machines, not about tmkit. */
const BUILD_MACHINE: RegExp[] = [
  /\bthis machine\b/i,
  /\b(development|build|CI|our|the maintainers'?) machines?\b/i,
  /\bmodule proxy\b/i,
  /\b(be |been )?(tested|installed|built|run|downloaded|reached) here\b/i,
  /\bcannot be [a-z]+ here\b/i,
  /\bhere\s*[.;)]/i, // "… from the package registries here."
];

// --------------------------------------------------------------------------------------------- checking

/** The page's items: each top-level or nested bullet with its continuation lines, as one line of text. */
function items(md: string): string[] {
  const out: string[] = [];
  for (const line of md.split('\n')) {
    if (/^\s*- /.test(line)) out.push(line.trim());
    else if (/^\s+\S/.test(line) && out.length > 0) out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

/** GitHub's anchor of a heading. */
const slug = (h: string): string =>
  h
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

function problems(md: string, help: Help, pagePath = PAGE): string[] {
  const found: string[] = [];
  const allFlags = new Set([...help.values()].flatMap((t) => [...flagsIn(t)]));
  const topCommands = new Set([...help.keys()].filter((k) => k !== '').map((k) => k.split(' ')[0]!));
  for (const item of items(md)) {
    const short = item.length > 90 ? `${item.slice(0, 90)}…` : item;
    for (const { claim, evidence } of CLAIMS) {
      if (!claim.test(item)) continue;
      for (const e of evidence) {
        const why = contradicts(e, help);
        if (why !== undefined) found.push(`"${short}" says ${claim} but ${why}`);
      }
    }
    for (const m of item.matchAll(/\bissues? (\d+)(?:, items? (\d+)(?: and (\d+))?)?/g)) {
      const keys = [m[2], m[3]].filter((x): x is string => x !== undefined).map((i) => `${m[1]}.${i}`);
      if (keys.length === 0) found.push(`"${short}" names issue ${m[1]} without an item: say which (issue ${m[1]}, item N)`);
      for (const key of keys) {
        const watch = TRACKED[key];
        if (!watch) {
          found.push(
            `"${short}" points at issue ${key.replace('.', ', item ')}, which TRACKED in this test does not watch: add what shows it done`,
          );
          continue;
        }
        for (const e of watch) {
          const why = contradicts(e, help);
          if (why !== undefined)
            found.push(`"${short}" says issue ${key.replace('.', ', item ')} is planned, but ${why}: say what exists now`);
        }
      }
    }
    const machine = BUILD_MACHINE.find((re) => re.test(item));
    if (machine) found.push(`"${short}" is about the maintainers' machines (${machine}): move it to docs/development.md`);
    for (const span of item.matchAll(/`([^`]+)`/g)) {
      const code = span[1]!;
      const before = item.slice(0, span.index);
      const negated = /\bno\s+$/i.test(before);
      for (const flag of flagsIn(code)) {
        if (FOREIGN_FLAGS[flag] !== undefined) continue;
        if (negated && allFlags.has(flag)) found.push(`"${short}" says there is no ${flag}, but a --help offers it`);
        if (!negated && !allFlags.has(flag)) found.push(`"${short}" names ${flag}, which no \`tmkit … --help\` offers`);
      }
      const cmd = /^tmkit ([a-z][a-z0-9-]*)/.exec(code)?.[1];
      if (cmd !== undefined) {
        if (negated && topCommands.has(cmd)) found.push(`"${short}" says there is no \`tmkit ${cmd}\`, but it exists`);
        if (!negated && !topCommands.has(cmd)) found.push(`"${short}" names \`tmkit ${cmd}\`, which does not exist`);
      }
    }
    for (const link of item.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [file, anchor] = link[1]!.split('#');
      if (/^[a-z]+:/.test(file!)) continue;
      const target = file === '' ? pagePath : join(dirname(PAGE), file!);
      if (!existsSync(target)) {
        found.push(`"${short}" links to ${link[1]}, which does not exist`);
        continue;
      }
      if (anchor !== undefined) {
        const headings = [...readFileSync(target, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((h) => slug(h[1]!));
        if (!headings.includes(anchor)) found.push(`"${short}" links to ${link[1]}, but ${file} has no such heading`);
      }
    }
  }
  return found;
}

let help: Help;
beforeAll(async () => {
  help = await collectHelp();
}, 60_000);

test('the built CLI was read: every command with its --help, as `tmkit … --help` prints it', async () => {
  for (const path of ['', 'serve', 'status', 'plan', 'preview', 'get', 'endpoint health', 'dnssec', 'terraform'])
    expect(help.has(path)).toBe(true);
  expect(help.size).toBeGreaterThan(40);
  expect(help.get('serve')).toBe(await binHelp(['serve']));
  expect(help.get('endpoint health')).toBe(await binHelp(['endpoint', 'health']));
}, 60_000);

test('docs/limitations.md: every line true as far as the CLI, the docs and the code can tell', () => {
  expect(problems(readFileSync(PAGE, 'utf8'), help)).toEqual([]);
});

test("the table's evidence is live: files it reads exist, and today's features are seen", () => {
  for (const e of [...CLAIMS.flatMap((c) => c.evidence), ...Object.values(TRACKED).flat()]) {
    if ('doc' in e) expect(existsSync(join(REPO, e.doc))).toBe(true);
    if ('flag' in e && e.of !== undefined) expect(help.has(e.of)).toBe(true);
  }
  // features that exist now are found by the table (so a line denying them fails)
  const exists = (claim: RegExp): boolean =>
    CLAIMS.filter((c) => String(c.claim) === String(claim)).some((c) => c.evidence.some((e) => contradicts(e, help) !== undefined));
  expect(exists(CLAIMS[0]!.claim)).toBe(true); // DNSSEC
  expect(exists(CLAIMS[1]!.claim)).toBe(true); // certificate validation
  expect(exists(CLAIMS[2]!.claim)).toBe(true); // /v1/events
  expect(exists(CLAIMS[3]!.claim)).toBe(true); // default User-Agent
});

test('the lines the page held before this test are all caught', () => {
  // verbatim from docs/limitations.md before issue 40 (one line each)
  const before = [
    '- **DNS:** No zone transfers or per-query logging. No DNSSEC.',
    '- **Day-2 CLI.** `tmkit status --watch` polls (`--interval`, 2 s); there is no push from the server.',
    '- `pulumi import` (the command) cannot be tested here. It needs the Node.js language host, which cannot be built on this machine (the module proxy refuses `pulumi-language-nodejs`).',
    "- Validation warnings (`weight is ignored by Performance routing`) are not shown: the protocol's check has no warnings.",
    '- The e2e tests need `terraform` on `PATH` (or `TMKIT_TEST_TERRAFORM`). It cannot be installed from the package registries here.',
    '- On the 2-core development machine that lowered the CPU per query by about 30 % but not measurably raised throughput.',
    '- HTTPS probes do not validate certificates (as Azure).',
    '- There is no probe User-Agent configuration.',
    '- No functions, and a plan for them in issue 41.',
    '- Provider functions are planned in issue 41, item 9.',
    '- Moving a store is a plan/apply; there is no `tmkit backup`.',
    '- `tmkit status --wacth` polls; see `tmkit statuss`.',
    '- See [DNS server](dns.md#no-such-heading) and [Gone](gone.md).',
  ];
  const found = problems(before.join('\n'), help);
  const caught = (line: string): boolean => found.some((p) => p.startsWith(`"${line.slice(0, 40)}`));
  expect(before.filter((l) => !caught(l))).toEqual([]);
  expect(found.join('\n')).toMatch(/No DNSSEC.*--dnssec/);
  expect(found.join('\n')).toMatch(/Day-2 CLI.*but docs\/api\.md says/);
  expect(found.join('\n')).toMatch(/User-Agent.*Azure Traffic Manager Endpoint Monitor/);
});

test('docs/development.md holds the build-machine facts the page used to carry', () => {
  const dev = read('docs/development.md');
  expect(dev).toMatch(/^## What the build machine cannot run$/m);
  expect(dev).toMatch(/pulumi-language-nodejs/);
  expect(dev).toMatch(/TMKIT_TEST_TERRAFORM/);
  // and every doc page the limitations page links exists in docs/
  const pages = new Set(readdirSync(join(REPO, 'docs')));
  for (const m of read('docs/limitations.md').matchAll(/\]\(([a-z-]+\.md)/gi)) expect(pages.has(m[1]!)).toBe(true);
});
