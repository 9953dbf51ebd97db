/**
 * The results of `tmkit test`: text (one line per test, the why indented under a failure), JSON, and
 * JUnit XML for CI test reports (GitHub, GitLab, Jenkins, Azure Pipelines read it).
 */
import { count } from '../words';
import type { PlanTests, RoutingTestResult, TestFileProblem } from './types';

export function summary(results: readonly RoutingTestResult[]): { passed: number; failed: number } {
  const failed = results.filter((r) => !r.passed).length;
  return { passed: results.length - failed, failed };
}

export function renderTestsText(results: readonly RoutingTestResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`${r.passed ? 'PASS' : 'FAIL'}  ${r.name} [${r.profile}]: ${r.message}`);
    for (const d of r.details) out.push(`        ${d}`);
  }
  const s = summary(results);
  out.push(
    results.length === 0
      ? 'No tests.'
      : s.failed === 0
        ? `${count(s.passed, 'test')} passed.`
        : `${count(s.failed, 'test')} failed, ${s.passed} passed.`,
  );
  return `${out.join('\n')}\n`;
}

export function renderTestsJson(results: readonly RoutingTestResult[]): string {
  return `${JSON.stringify({ ...summary(results), tests: results }, null, 2)}\n`;
}

export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');
}

/** JUnit XML: one testsuite, one testcase per test (classname: the profile), a failure with the why. */
export function renderTestsJunit(results: readonly RoutingTestResult[], suite = 'tmkit test'): string {
  const s = summary(results);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suite)}" tests="${results.length}" failures="${s.failed}" errors="0">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${results.length}" failures="${s.failed}" errors="0" skipped="0">`,
  ];
  for (const r of results) {
    const head = `    <testcase classname="${xmlEscape(r.profile)}" name="${xmlEscape(r.name)}"`;
    if (r.passed) {
      lines.push(`${head}/>`);
      continue;
    }
    lines.push(`${head}>`);
    lines.push(
      `      <failure message="${xmlEscape(r.message)}" type="RoutingTestFailure">${xmlEscape([r.message, ...r.details].join('\n'))}</failure>`,
    );
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

/** A bad tests file's problems, one line each: `TESTS.json: tests[1].down[0]: …`. */
export function renderProblems(file: string, problems: readonly TestFileProblem[]): string[] {
  return problems.map((p) => `${file}: ${p.path}: ${p.message}`);
}

/** The one-line verdict of a plan's tests: `Routing tests (tmkit.tests.json): 3 passed.` */
export function planTestsSummary(t: PlanTests): string {
  if (t.problems.length > 0) return `Routing tests (${t.file}): the file has ${count(t.problems.length, 'problem')}; no test ran.`;
  const s = summary(t.results);
  return `Routing tests (${t.file}): ${s.failed === 0 ? `${count(s.passed, 'test')} passed` : `${count(s.failed, 'test')} failed, ${s.passed} passed`}.`;
}

/** The lines under that verdict: one per test (the why under a failure), or the file's problems. */
export function planTestsLines(t: PlanTests): string[] {
  if (t.problems.length > 0) return t.problems.map((p) => `${p.path}: ${p.message}`);
  return t.results.flatMap((r) => [
    `${r.passed ? 'PASS' : 'FAIL'}  ${r.name} [${r.profile}]: ${r.message}`,
    ...(r.passed ? [] : r.details.map((d) => `      ${d}`)),
  ]);
}

/** True when the tests make the plan fail (exit 1): a failing test, or a bad tests file. */
export function planTestsFailed(t: PlanTests | undefined): boolean {
  return t !== undefined && (t.problems.length > 0 || t.results.some((r) => !r.passed));
}
