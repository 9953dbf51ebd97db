/**
 * The committed examples/<name>/tmkit.out.json must be exactly what the example app synthesizes today,
 * so the examples never drift from the constructs (regenerate with `npx tmkit synth` in the directory).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from '../../src/constructs';
import { validate } from '../../src/core/validate';
import { buildApp as buildBasic } from '../../examples/basic/app';
import { buildApp as buildNested } from '../../examples/nested/app';

const EXAMPLES = join(__dirname, '../../examples');

test.each([
  ['basic', () => buildBasic(new App({ outdir: '/nonexistent' }))],
  ['nested', () => buildNested({ outdir: '/nonexistent' })],
])('examples/%s/tmkit.out.json equals a fresh synth and is valid', (name, build) => {
  const committed = readFileSync(join(EXAMPLES, name, 'tmkit.out.json'), 'utf8');
  const { document, warnings } = build().synthesize();
  expect(`${JSON.stringify(document, null, 2)}\n`).toBe(committed);
  expect(warnings).toEqual([]);
  expect(validate(JSON.parse(committed))).toEqual([]);
});

test('the nested example is the seed scenario', () => {
  const { document } = buildNested({ outdir: '/nonexistent' }).synthesize();
  const parent = document.profiles.find((p) => p.trafficRoutingMethod === 'Performance')!;
  expect(parent.endpoints!.map((e) => [e.type, e.endpointLocation])).toEqual([
    ['externalEndpoints', 'westus'],
    ['nestedEndpoints', 'westeurope'],
    ['externalEndpoints', 'eastasia'],
  ]);
  const nested = parent.endpoints![1]!;
  expect(nested.minChildEndpoints).toBe(2);
  const child = document.profiles.find((p) => p.name === nested.targetResourceId)!;
  expect(child.trafficRoutingMethod).toBe('Weighted');
  expect(child.endpoints!.map((e) => e.name)).toEqual(['production', 'canary']);
});
