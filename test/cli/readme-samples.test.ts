/**
 * README's sample outputs are what the CLI prints now (issue 40 item 7: the ETag, the `status web` lines had
 * drifted). A real `tmkit serve --apply examples/basic/tmkit.out.json` on a fresh state dir, as the quick start
 * runs it: the apply line's ETag is compared exactly (it is revision 1 and a hash of the profile, so the same
 * on every fresh state dir: it moves when the document or its normalization does, and then README must too).
 * Then `tmkit status` and `tmkit status web` without a health server, compared with README's blocks with only
 * the volatile values masked (times, latencies, which endpoint failed first). The banner itself is
 * test/cli/serve-terminal.test.ts's. Also README's sentence on npm's EBADENGINE notice against the engines
 * field it explains.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO, runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';

jest.setTimeout(120_000);

const tmp = tempDirs('tmkit-readme-samples-');
const readme = (): string => readFileSync(join(REPO, 'README.md'), 'utf8');
let serve: ServeProcess | undefined;

afterEach(async () => {
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.closed;
    serve = undefined;
  }
});

/** README's fenced block whose first line starts with `first`. */
function block(first: string): string[] {
  const blocks = readme().split('\n```\n');
  const b = blocks.find((x) => x.startsWith(first));
  if (!b) throw new Error(`README.md has no sample block starting with ${JSON.stringify(first)}`);
  return b.trimEnd().split('\n');
}

/** A loopback port nothing listens on (bound, then closed): probes to it are refused. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Times, latencies and the order of same-time lines are what differs from run to run. */
const mask = (lines: string[]): string[] =>
  lines.map((l) =>
    l
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '…')
      .replace(/\d+(\.\d+)? ms\)/g, 'N ms)')
      .replace(/^( {4}… {2})(primary|backup)(:)/, '$1<endpoint>$3'),
  );

test("README's apply line (ETag) and its status samples are what the CLI prints on a fresh state dir", async () => {
  const dir = tmp();
  const stateDir = join(dir, '.tmkit');
  serve = await spawnServe(stateDir, ['--apply', 'examples/basic/tmkit.out.json']);
  const applyLine = serve
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('  [1/1] PUT web (create)'));
  expect(applyLine).toBe(block('tmkit serve: applying').find((l) => l.startsWith('  [1/1] PUT web (create)')));

  // Without a health server: the same profile probed on a port where nothing listens (the quick start's
  // 8080 may be taken by another test's health server).
  const doc = JSON.parse(readFileSync(join(REPO, 'examples/basic/tmkit.out.json'), 'utf8')) as {
    profiles: Array<{ monitorConfig: { port: number } }>;
  };
  doc.profiles[0]!.monitorConfig.port = await closedPort();
  writeFileSync(join(dir, 'closed.json'), JSON.stringify(doc));
  const cli = (args: string[]) => runTmkit(args, { cwd: dir, env: { TMKIT_SERVER: serve!.api, TMKIT_STATE_DIR: stateDir } });
  expect((await cli(['apply', 'closed.json', '--yes'])).code).toBe(0);
  const table = await waitFor(
    async () => {
      const r = await cli(['status']);
      return r.stdout.includes('all endpoints Degraded') ? r.stdout : undefined;
    },
    { what: 'both endpoints Degraded', timeoutMs: 60_000, intervalMs: 500 },
  );
  // "Without the health server, `web` shows `Degraded  0/2  default  all endpoints Degraded: answering as if Online`"
  const said = /Without the health server, `web` shows `([^`]+)`/.exec(readme().replace(/\n/g, ' '));
  expect(said).not.toBeNull();
  expect(table.split('\n')[1]!.replace(/ {2,}/g, '  ')).toContain(said![1]!.replace(/ {2,}/g, '  '));
  // README's table sample has the same header as the CLI's.
  expect(table.split('\n')[0]!.split(/ +/)).toEqual(block('PROFILE ')[0]!.split(/ +/));

  const web = (await cli(['status', 'web'])).stdout.trimEnd().split('\n');
  const sample = block('web  web.tm.internal  Degraded');
  const sorted = (l: string[]): string[] => [...l.slice(0, 4), ...l.slice(4).sort()];
  expect(sorted(mask(web))).toEqual(sorted(mask(sample)));
});

test("README's EBADENGINE sentence names what @pulumi/pulumi's engines field asks for", () => {
  const engines = (
    JSON.parse(readFileSync(join(REPO, 'node_modules/@pulumi/pulumi/package.json'), 'utf8')) as { engines: { node: string } }
  ).engines.node;
  const m = /^>=(\d+)$/.exec(engines);
  expect(m).not.toBeNull();
  const text = readme().replace(/\n/g, ' ');
  expect(text).toContain('`npm warn EBADENGINE Unsupported engine` for `@pulumi/pulumi`');
  expect(text).toContain(`its \`engines\` field asks for Node ≥ ${m![1]}`);
});
