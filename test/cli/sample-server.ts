/**
 * A real management API (SQLite store) with the GitHub Actions sample's "main" document deployed through
 * a plan of its own (children before parents): the starting point of the plan and apply CLI tests.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executePlan, TmkitClient } from '../../src/client';
import { normalize } from '../../src/core/model/normalize';
import type { DocumentInput } from '../../src/core/model/types';
import { diff } from '../../src/core/plan';
import { startApi, TOKEN, type Harness } from '../runtime/api/harness';
import { REPO } from './run';

export const SAMPLE = join(REPO, 'examples/github-actions/sample');
export const MAIN = join(SAMPLE, 'main.tmkit.out.json');
export const PR = join(SAMPLE, 'pr.tmkit.out.json');
export const mainDoc = normalize(JSON.parse(readFileSync(MAIN, 'utf8')) as DocumentInput);

export interface DeployedSample {
  h: Harness;
  client: TmkitClient;
  /** A temporary directory for the test's files. */
  dir: string;
  close(): Promise<void>;
}

export async function deployMainSample(tmpPrefix: string): Promise<DeployedSample> {
  const h = await startApi();
  const client = new TmkitClient({ server: h.base, token: TOKEN, retries: 0 });
  const dir = mkdtempSync(join(tmpdir(), tmpPrefix));
  const first = await executePlan(client, diff(mainDoc, []));
  expect(first.failed).toBeUndefined();
  return {
    h,
    client,
    dir,
    async close() {
      await client.close();
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
