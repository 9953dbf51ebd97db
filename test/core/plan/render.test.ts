import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileInput } from '../../../src/core/model/types';
import {
  applyOrder,
  buildReport,
  diff,
  previewPlan,
  readPlanJson,
  renderJson,
  renderMarkdown,
  renderText,
  writeText,
  GITHUB_COMMENT_LIMIT,
  PlanFormatError,
  type PlanReport,
} from '../../../src/core/plan';
import { deployedOf, doc, webBefore, webScenario } from './fixtures';
import { testGeo } from './geo';

/**
 * Golden files: rendered once, reviewed by eye, compared exactly. Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 npx jest test/core/plan/render` and review the diff.
 */
const GOLDEN = join(__dirname, 'golden');
function golden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, actual);
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

function webReport(): PlanReport {
  const { desired, deployed } = webScenario();
  const plan = diff(desired, deployed);
  return buildReport(plan, deployed, { preview: previewPlan(plan, deployed, testGeo()), maxFailoverSeconds: 180 });
}

function noChangeReport(): PlanReport {
  const d = doc('web', webBefore());
  const deployed = deployedOf(d);
  const plan = diff(d, deployed);
  return buildReport(plan, deployed, { preview: previewPlan(plan, deployed, testGeo()) });
}

describe('golden output', () => {
  test.each([
    ['web.txt', () => renderText(webReport())],
    ['web.md', () => renderMarkdown(webReport())],
    ['web.json', () => renderJson(webReport())],
    ['nochange.txt', () => renderText(noChangeReport())],
    ['nochange.md', () => renderMarkdown(noChangeReport())],
  ])('%s', (name, render) => {
    golden(name, render());
  });

  test('output is stable: a fresh diff and preview render the same bytes', () => {
    expect(renderText(webReport())).toBe(renderText(webReport()));
    expect(renderMarkdown(webReport())).toBe(renderMarkdown(webReport()));
    expect(renderJson(webReport())).toBe(renderJson(webReport()));
  });
});

describe('text renderer', () => {
  test('colours only when asked, and the colourless text is the same with the codes removed', () => {
    const plain = renderText(webReport());
    const color = renderText(webReport(), { color: true });
    expect(plain).not.toContain('\u001b[');
    expect(color).toContain('\u001b[32m  + profile contoso-api');
    expect(color.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });

  test('ends with the summary line and writes to a given writer', () => {
    const chunks: string[] = [];
    writeText(webReport(), { write: (s: string) => chunks.push(s) });
    expect(chunks.join('').trimEnd().split('\n').pop()).toBe('Plan: 1 to add, 2 to change, 1 to replace, 1 to destroy.');
  });
});

describe('markdown renderer', () => {
  test('Acceptance: 10% weighted traffic moved, a geo mapping added, an endpoint deleted — readable without the code', () => {
    const md = renderMarkdown(webReport());
    const lines = md.split('\n');
    // Summary first.
    expect(lines.slice(0, 4).join('\n')).toContain('**Plan: 1 to add, 2 to change, 1 to replace, 1 to destroy.**');
    // The endpoint changes as a table: deleted, re-weighted, added.
    expect(md).toContain('| `legacy` | ➖ removed | external, legacy.contoso.net, weight 10 | |');
    expect(md).toContain('| `eu-west` | `weight` | 50 | 40 |');
    expect(md).toContain('| `eu-canary` | ➕ added | | external, eu-canary.contoso.net, weight 10 |');
    // What it does to traffic, in points.
    expect(md).toContain('| `eu-west` | 50% | 40% | −10 pts |');
    expect(md).toContain('| `eu-canary` | 0% | 10% | +10 pts |');
    // The geo mapping and who it moves.
    expect(md).toContain('| `europe` | `geoMapping` (+GEO-ME) | ["GEO-EU"] | ["GEO-EU","GEO-ME"] |');
    expect(md).toMatch(/\| `GEO-ME` \| `rest` \| `contoso-eu\/eu-primary` \| 15 regions: AE, /);
    // One collapsible section per changed profile.
    expect(md.match(/<details><summary><code>/g)).toHaveLength(5);
  });

  test('a large plan is cut to the limit, saying what was left out', () => {
    const many: ProfileInput[] = Array.from({ length: 400 }, (_, i) => ({
      name: `svc-${String(i).padStart(3, '0')}`,
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: `svc-${i}` },
      endpoints: [
        { name: 'a', type: 'externalEndpoints', target: `a${i}.example.net`, weight: 10 },
        { name: 'b', type: 'externalEndpoints', target: `b${i}.example.net` },
      ],
    }));
    const d = doc('big', many);
    const deployed = deployedOf(
      doc(
        'big',
        many.map((p) => ({ ...p, endpoints: p.endpoints!.map((e) => ({ ...e, weight: 5 })) })),
      ),
    );
    const plan = diff(d, deployed);
    const report = buildReport(plan, deployed, { preview: previewPlan(plan, deployed, testGeo()) });
    const md = renderMarkdown(report);
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md).toContain('**Plan: 0 to add, 400 to change, 0 to replace, 0 to destroy.**');
    expect(md).toContain("This comment was shortened to stay within GitHub's 65,536-character limit.");
    expect(md).toMatch(/Sections left out entirely: `svc-\d+`/);
    expect(md.endsWith('for the full plan.\n')).toBe(true);
    // Whole sections only: every opened <details> is closed.
    expect(md.match(/<details>/g)!.length).toBe(md.match(/<\/details>/g)!.length);

    const small = renderMarkdown(report, { maxChars: 8000 });
    expect(small.length).toBeLessThanOrEqual(8000);
    expect(small).toContain('**Plan: 0 to add, 400 to change');
  });

  test('a section too big with its preview is kept without the preview', () => {
    const report = webReport();
    const full = renderMarkdown(report);
    const limit = full.length - 500;
    const md = renderMarkdown(report, { maxChars: limit });
    expect(md.length).toBeLessThanOrEqual(limit);
    expect(md).toMatch(/Routing preview left out for: /);
  });
});

describe('json renderer', () => {
  test('is versioned and reads back into a plan with the same apply order', () => {
    const report = webReport();
    const json = JSON.parse(renderJson(report));
    expect(json.formatVersion).toBe(1);
    expect(json.kind).toBe('tmkit-plan');
    const back = readPlanJson(json);
    expect(applyOrder(back)).toEqual(applyOrder(report.plan));
    expect(back.changes.find((c) => c.profile === 'contoso-eu')).toEqual({
      profile: 'contoso-eu',
      action: 'no-op',
      baseEtag: '"contoso-eu-1"',
      attributes: [],
      replaceReasons: [],
    });
  });

  test.each([
    [{ kind: 'x' }, 'PLAN_FILE_NOT_A_PLAN'],
    [{ kind: 'tmkit-plan', formatVersion: 2 }, 'PLAN_FILE_VERSION'],
    [{ kind: 'tmkit-plan', formatVersion: 1, stack: 's', changes: [{ profile: 'p', action: 'update' }], steps: [] }, 'PLAN_FILE_INVALID'],
  ])('rejects %j with %s', (value, code) => {
    expect(() => readPlanJson(value)).toThrow(PlanFormatError);
    try {
      readPlanJson(value);
    } catch (e) {
      expect((e as PlanFormatError).code).toBe(code);
    }
  });
});

describe('weight and priority where the routing method ignores them (issue 16 item 8)', () => {
  const perf = (names: string[]): ProfileInput => ({
    name: 'api',
    trafficRoutingMethod: 'Performance',
    dnsConfig: { relativeName: 'api', ttl: 30 },
    endpoints: names.map((n) => ({ name: n, type: 'externalEndpoints', target: `${n}.contoso.net`, endpointLocation: n })),
  });

  test('a new endpoint first in a Performance profile shifts every derived priority: the plan shows the endpoint, not the priorities', () => {
    const deployed = deployedOf(doc('web', [perf(['westus', 'eastasia'])]));
    const report = buildReport(diff(doc('web', [perf(['westeurope', 'westus', 'eastasia'])]), deployed), deployed);
    const text = renderText(report);
    expect(text).toContain('+ endpoints[westeurope]: external, westeurope.contoso.net, location westeurope');
    expect(text).not.toMatch(/\.priority|priority \d/);
    expect(text).toContain('(2 weight/priority changes not shown: Performance routing does not use them)');
    const md = renderMarkdown(report);
    expect(md).not.toMatch(/`priority`|priority \d/);
    expect(md).toContain('_2 weight/priority changes not shown: Performance routing does not use them._');
    // The JSON plan keeps every stored change.
    expect(JSON.parse(renderJson(report)).changes[0].attributes.map((a: { path: string }) => a.path)).toEqual(
      expect.arrayContaining(['endpoints[westus].priority', 'endpoints[eastasia].priority']),
    );
  });

  test('creating a Performance profile lists its endpoints without weight or priority', () => {
    const text = renderText(buildReport(diff(doc('web', [perf(['westus'])]), []), []));
    expect(text).toContain('+ endpoints[westus]: external, westus.contoso.net, location westus');
  });
});
