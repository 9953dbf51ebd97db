/**
 * `tmkit plan` runs the routing tests beside the document (`tmkit.tests.json` in the document's directory,
 * where `tmkit synth` writes the tests an app declares; docs/testing.md) and shows them in the plan.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Document } from '../../core/model/types';
import type { ResourceCatalog } from '../../core/ports';
import { planTestsFailed, readRoutingTests, runRoutingTests, summary, type PlanTests } from '../../core/routing-tests';
import { count } from '../../core/words';
import { displayFile, readJsonFile } from './files';
import { openPreviewGeo } from './geo';

/** The tests file `tmkit plan` looks for beside the document. Must match src/constructs/routing-test.ts TESTS_FILE (the CLI does not load the constructs). */
export const PLAN_TESTS_FILE = 'tmkit.tests.json';

/** The tests beside `documentFile`, run against `document`; undefined when there is no such file. */
export async function testsBeside(
  documentFile: string,
  document: Document,
  opts: { geoip?: string | undefined; resources?: ResourceCatalog | undefined },
): Promise<PlanTests | undefined> {
  if (documentFile === '-') return undefined;
  const path = join(dirname(documentFile), PLAN_TESTS_FILE);
  if (!existsSync(path)) return undefined;
  const file = displayFile(path);
  let raw: unknown;
  try {
    raw = readJsonFile(path, 'tests file');
  } catch (err) {
    return { file, results: [], problems: [{ path: '$', message: (err as Error).message }] };
  }
  const input = { profiles: document.profiles, ...(opts.resources ? { resources: opts.resources } : {}) };
  const { tests, problems } = readRoutingTests(raw, input);
  if (problems.length > 0) return { file, results: [], problems };
  const geo = await openPreviewGeo(
    opts.geoip,
    tests.some((t) => t.client !== undefined),
  );
  return { file, results: runRoutingTests({ ...input, tests, geo }), problems: [] };
}

/** The stderr line of a plan whose tests fail (the plan shows which). */
export function testsMessages(tests: PlanTests | undefined): string[] {
  if (!tests || !planTestsFailed(tests)) return [];
  if (tests.problems.length > 0)
    return [`routing tests ${tests.file}: ${count(tests.problems.length, 'problem')}; no test ran (see the plan)`];
  return [`routing tests ${tests.file}: ${count(summary(tests.results).failed, 'test')} failed (see the plan)`];
}
