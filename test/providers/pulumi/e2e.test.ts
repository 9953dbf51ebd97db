/**
 * End to end with the real Pulumi CLI: the provider layer serving the test-only tmkittest:index:Thing
 * (a record in a JSON file), driven through the Automation API with inline programs. The steps share one
 * stack and run in order. Fails (never skips) when the CLI is missing: see harness.findPulumiCli.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import { newStack, type E2eStack } from './harness';
import { readData, writeData, type DataFile } from './thing/provider';
import { Thing, type ThingArgs } from './thing/sdk';

jest.setTimeout(180_000);

const TOKEN = 's3cr3t-t0ken-e2e';
const SIG = '4dabf18193072939515e22adb298388d';
const SECRET_SIG = '1b47061264138c4ac30d75fd1eb44270';

const base = (over: Partial<ThingArgs> = {}): ThingArgs => ({
  zone: 'example.test',
  size: 5,
  token: pulumi.secret(TOKEN),
  nested: { host: 'h1.example.test', port: 8080, tags: ['a', 'b'] },
  ...over,
});

/** A program with one Thing `alpha` (and whatever `more` adds). */
function program(args: ThingArgs, more?: () => void): () => Promise<Record<string, unknown>> {
  return async () => {
    const t = new Thing('alpha', args);
    more?.();
    return { fqdn: t.fqdn, revision: t.revision };
  };
}

function recorder(): { events: EngineEvent[]; onEvent: (e: EngineEvent) => void } {
  const events: EngineEvent[] = [];
  return {
    events,
    onEvent: (e) => {
      events.push(e);
    },
  };
}

/** The pre-step metadata the engine reported for the Thing named `name`. */
function thingSteps(events: EngineEvent[], name = 'alpha') {
  return events
    .map((e) => e.resourcePreEvent?.metadata)
    .filter((m): m is NonNullable<typeof m> => m !== undefined && m.type === 'tmkittest:index:Thing' && m.urn.endsWith(`::${name}`));
}

/** The order in which steps finished, for the Thing named `name`. */
function finishedOps(events: EngineEvent[], name = 'alpha'): string[] {
  return events
    .map((e) => e.resOutputsEvent?.metadata)
    .filter((m): m is NonNullable<typeof m> => m !== undefined && m.type === 'tmkittest:index:Thing' && m.urn.endsWith(`::${name}`))
    .map((m) => m.op);
}

/** The Thing's entry in `stack export --show-secrets` (what the Automation API's exportStack runs). */
async function thingState(
  stack: Stack,
  name = 'alpha',
): Promise<{ inputs: Record<string, unknown>; outputs: Record<string, unknown>; id: string } | undefined> {
  const d = (await stack.exportStack()).deployment as {
    resources?: Array<{ urn: string; type: string; id: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }>;
  };
  return d.resources?.find((r) => r.type === 'tmkittest:index:Thing' && r.urn.endsWith(`::${name}`));
}

/** The stack's state file as the file:// backend stores it. */
function stateFile(): string {
  const dir = join(e2e.work, 'state/.pulumi/stacks/tmkite2e');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(files).toEqual(['dev.json']);
  return readFileSync(join(dir, files[0]!), 'utf8');
}

/**
 * The secret is a secret in state wherever it appears (export shows it in a secret envelope), and the stored
 * state holds only its ciphertext.
 */
async function expectSecretEncrypted(stack: Stack, name = 'alpha'): Promise<void> {
  const st = await thingState(stack, name);
  expect(st).toBeDefined();
  for (const where of [st!.inputs, st!.outputs]) expect(where.token).toEqual({ [SIG]: SECRET_SIG, plaintext: JSON.stringify(TOKEN) });
  const stored = stateFile();
  expect(stored).not.toContain(TOKEN);
  const resources = (
    JSON.parse(stored) as {
      checkpoint: { latest: { resources: Array<{ urn: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }> } };
    }
  ).checkpoint.latest.resources;
  const raw = resources.find((r) => r.urn.endsWith(`tmkittest:index:Thing::${name}`))!;
  for (const where of [raw.inputs!, raw.outputs!]) {
    const token = where.token as Record<string, unknown>;
    expect(token[SIG]).toBe(SECRET_SIG);
    expect(typeof token.ciphertext).toBe('string');
  }
}

let e2e: E2eStack;
let stack: Stack;
const data = (): DataFile => readData(e2e.dataFile);

beforeAll(async () => {
  e2e = await newStack(program(base()));
  stack = e2e.stack;
});

afterAll(async () => {
  if (e2e) rmSync(e2e.work, { recursive: true, force: true });
});

test('preview of a new Thing plans a create and writes nothing (create is never called in preview)', async () => {
  const rec = recorder();
  const t0 = Date.now();
  const pv = await stack.preview({ onEvent: rec.onEvent });
  console.info(`timing: preview (create) ${Date.now() - t0} ms`);
  expect(pv.changeSummary).toEqual({ create: 2 });
  const steps = thingSteps(rec.events);
  expect(steps.map((s) => s.op)).toEqual(['create']);
  expect(data().things).toEqual({});
});

test('up creates the Thing: the record exists, outputs are known, the secret is encrypted in state', async () => {
  const t0 = Date.now();
  const up = await stack.up();
  console.info(`timing: up (create) ${Date.now() - t0} ms`);
  expect(up.summary.resourceChanges).toEqual({ create: 2 });
  expect(up.outputs.fqdn).toEqual({ value: 'alpha.example.test', secret: false });
  expect(up.outputs.revision).toEqual({ value: 1, secret: false });
  expect(data().things.alpha).toEqual({
    zone: 'example.test',
    size: 5,
    token: TOKEN,
    nested: { host: 'h1.example.test', port: 8080, tags: ['a', 'b'] },
    owner: 'pulumi',
    revision: 1,
  });
  await expectSecretEncrypted(stack);
});

test('a one-property change previews as a one-property update (detailed diff at its path)', async () => {
  const rec = recorder();
  const t0 = Date.now();
  const pv = await stack.preview({ program: program(base({ size: 6 })), onEvent: rec.onEvent });
  console.info(`timing: preview (update) ${Date.now() - t0} ms`);
  expect(pv.changeSummary).toEqual({ same: 1, update: 1 });
  const [step] = thingSteps(rec.events);
  expect(step!.op).toBe('update');
  expect(step!.diffs).toEqual(['size']);
  expect(step!.detailedDiff).toEqual({ size: { diffKind: 'update', inputDiff: true } });
  expect(data().things.alpha!.size).toBe(5);
});

test('a nested one-field change is reported at its nested path; up applies it', async () => {
  const args = base({ size: 6, nested: { host: 'h1.example.test', port: 8080, tags: ['a', 'c'] } });
  const rec = recorder();
  const pv = await stack.preview({ program: program(args), onEvent: rec.onEvent });
  expect(pv.changeSummary).toEqual({ same: 1, update: 1 });
  expect(thingSteps(rec.events)[0]!.detailedDiff).toEqual({
    size: { diffKind: 'update', inputDiff: true },
    'nested.tags[1]': { diffKind: 'update', inputDiff: true },
  });
  const t0 = Date.now();
  const up = await stack.up({ program: program(args) });
  console.info(`timing: up (update) ${Date.now() - t0} ms`);
  expect(up.summary.resourceChanges).toEqual({ same: 1, update: 1 });
  expect(up.outputs.revision!.value).toBe(2);
  expect(data().things.alpha).toMatchObject({ size: 6, nested: { tags: ['a', 'c'] }, revision: 2 });
  await expectSecretEncrypted(stack);
});

test('changing a replace-on-change property with the same id replaces it, deleting first', async () => {
  const args = base({ size: 6, zone: 'other.test', nested: { host: 'h1.example.test', port: 8080, tags: ['a', 'c'] } });
  const rec = recorder();
  const pv = await stack.preview({ program: program(args), onEvent: rec.onEvent });
  expect(pv.changeSummary).toEqual({ same: 1, replace: 1 });
  const step = thingSteps(rec.events).find((s) => s.op === 'replace');
  expect(step!.detailedDiff).toEqual({ zone: { diffKind: 'update-replace', inputDiff: true } });
  expect(step!.keys).toEqual(['zone']);

  const up = await stack.up({ program: program(args), onEvent: rec.onEvent });
  expect(up.summary.resourceChanges).toEqual({ same: 1, replace: 1 });
  // deleteBeforeReplace: the old record goes before the new one is written (they share the id "alpha").
  const ops = finishedOps(rec.events);
  expect(ops.indexOf('delete-replaced')).toBeGreaterThanOrEqual(0);
  expect(ops.indexOf('delete-replaced')).toBeLessThan(ops.indexOf('create-replacement'));
  expect(data().things.alpha).toMatchObject({ zone: 'other.test', revision: 1 });
  expect(up.outputs.fqdn!.value).toBe('alpha.other.test');
});

test('changing the name (the id) replaces it, creating the new one first', async () => {
  const args = base({ name: 'alpha-2', size: 6, zone: 'other.test', nested: { host: 'h1.example.test', port: 8080, tags: ['a', 'c'] } });
  const rec = recorder();
  const up = await stack.up({ program: program(args), onEvent: rec.onEvent });
  expect(up.summary.resourceChanges).toEqual({ same: 1, replace: 1 });
  const ops = finishedOps(rec.events);
  expect(ops.indexOf('create-replacement')).toBeLessThan(ops.indexOf('delete-replaced'));
  expect(Object.keys(data().things)).toEqual(['alpha-2']);
  expect((await thingState(stack))!.id).toBe('alpha-2');
  await expectSecretEncrypted(stack);
});

test('check failures are shown with their property paths, in preview and up, and nothing is written', async () => {
  const before = readFileSync(e2e.dataFile, 'utf8');
  const bad = { ...base({ size: 0, nested: { host: '', port: 70000, tags: ['x', 5 as unknown as string] } }) };
  // Never returns: an inline program that returns after the engine gave up makes the SDK register the stack's
  // outputs with a monitor that is gone, an unhandled rejection that would fail this file.
  const badProgram = async () => {
    new Thing('broken', bad);
    return new Promise<Record<string, never>>(() => undefined);
  };
  const pv = stack.preview({ program: badProgram });
  await expect(pv).rejects.toThrow(/nested\.port[\s\S]*must be an integer port from 1 to 65535/);
  let message = '';
  try {
    await stack.up({ program: badProgram });
  } catch (err) {
    message = String((err as Error).message);
  }
  expect(message).toMatch(/tmkittest:index:Thing resource 'broken'.*property size .*has a problem: must be an integer from 1 to 100/);
  expect(message).toMatch(/property nested\.host .*has a problem: must be a non-empty string/);
  expect(message).toMatch(/property nested\.port .*has a problem: must be an integer port from 1 to 65535/);
  expect(message).toMatch(/property nested\.tags\[1\] .*has a problem: must be a string/);
  expect(readFileSync(e2e.dataFile, 'utf8')).toBe(before);
});

const current = base({ name: 'alpha-2', size: 6, zone: 'other.test', nested: { host: 'h1.example.test', port: 8080, tags: ['a', 'c'] } });

test("refresh after the record changed behind Pulumi's back shows the drift; the next preview plans to undo it", async () => {
  // The failed up above left the stack as it was; make sure state and program agree first.
  await stack.up({ program: program(current) });
  const d = data();
  d.things['alpha-2']!.size = 42;
  writeData(e2e.dataFile, d);

  const rec = recorder();
  const rf = await stack.refresh({ onEvent: rec.onEvent });
  expect(rf.summary.resourceChanges).toMatchObject({ update: 1 });
  // The engine diffs the refreshed outputs through the provider's Diff: the drift is shown at its path.
  const done = rec.events.map((e) => e.resOutputsEvent?.metadata).filter((m) => m?.type === 'tmkittest:index:Thing');
  expect(done.map((m) => [m!.op, m!.diffs, m!.detailedDiff])).toEqual([
    ['update', ['size'], { size: { diffKind: 'update', inputDiff: true } }],
  ]);
  expect((await thingState(stack))!.outputs.size).toBe(42);
  await expectSecretEncrypted(stack);

  const rec2 = recorder();
  const pv = await stack.preview({ program: program(current), onEvent: rec2.onEvent });
  expect(pv.changeSummary).toEqual({ same: 1, update: 1 });
  expect(thingSteps(rec2.events)[0]!.detailedDiff).toEqual({ size: { diffKind: 'update', inputDiff: true } });
});

test('refresh drops a Thing whose record is gone (read answers id ""), and up creates it again', async () => {
  const d = data();
  delete d.things['alpha-2'];
  writeData(e2e.dataFile, d);
  const rf = await stack.refresh();
  expect(rf.summary.resourceChanges).toMatchObject({ delete: 1 });
  expect(await thingState(stack)).toBeUndefined();

  const up = await stack.up({ program: program(current) });
  expect(up.summary.resourceChanges).toEqual({ same: 1, create: 1 });
  expect(data().things['alpha-2']).toMatchObject({ size: 6, revision: 1 });
});

test('the import resource option adopts an existing record without writing it; differing inputs import, then update', async () => {
  const d = data();
  d.things.legacy = {
    zone: 'legacy.test',
    size: 3,
    token: TOKEN,
    nested: { host: 'old.example.test', port: 22 },
    owner: 'someone',
    revision: 7,
  };
  d.things['legacy-b'] = {
    zone: 'legacy.test',
    size: 3,
    token: TOKEN,
    nested: { host: 'old.example.test', port: 22 },
    owner: 'someone',
    revision: 7,
  };
  writeData(e2e.dataFile, d);
  const legacyArgs: ThingArgs = {
    zone: 'legacy.test',
    size: 3,
    token: pulumi.secret(TOKEN),
    nested: { host: 'old.example.test', port: 22 },
  };
  const withLegacy = program(current, () => {
    new Thing('legacy', legacyArgs, { import: 'legacy' });
  });

  const up = await stack.up({ program: withLegacy });
  expect(up.summary.resourceChanges).toEqual({ same: 2, import: 1 });
  expect(data().things.legacy!.revision).toBe(7);
  const st = await thingState(stack, 'legacy');
  expect(st!.id).toBe('legacy');
  expect(st!.outputs.owner).toBe('someone');
  await expectSecretEncrypted(stack, 'legacy');

  // Inputs that differ from the record: this engine imports and then updates in the same run (no error).
  const rec = recorder();
  const up2 = await stack.up({
    program: program(current, () => {
      new Thing('legacy', legacyArgs, { import: 'legacy' });
      new Thing('legacy-b', { ...legacyArgs, size: 4 }, { import: 'legacy-b' });
    }),
    onEvent: rec.onEvent,
  });
  expect(up2.summary.resourceChanges).toEqual({ same: 3, import: 1, update: 1 });
  expect(finishedOps(rec.events, 'legacy-b')).toEqual(['import', 'update']);
  expect(data().things['legacy-b']).toMatchObject({ size: 4, revision: 8 });
  expect(data().things.legacy!.revision).toBe(7);
  await expectSecretEncrypted(stack, 'legacy-b');
});

test('destroy deletes every record', async () => {
  const t0 = Date.now();
  const ds = await stack.destroy();
  console.info(`timing: destroy ${Date.now() - t0} ms`);
  expect(ds.summary.resourceChanges).toEqual({ delete: 4 });
  expect(data().things).toEqual({});
  expect(await thingState(stack)).toBeUndefined();
});
