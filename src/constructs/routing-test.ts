/**
 * Routing tests declared next to the profiles they hold (docs/testing.md): `profile.expect(...)` or a
 * `RoutingTest` construct anywhere in the tree. `App.synth()` writes them as `tmkit.tests.json` beside
 * `tmkit.out.json`, the file `tmkit test` runs and `tmkit plan` picks up.
 */
import { Construct, type IConstruct } from 'constructs';
import { normalize } from '../core/model/normalize';
import type { DocumentInput } from '../core/model/types';
import { checkRoutingTests, parseRoutingTests, type RoutingTest as RoutingTestSpec } from '../core/routing-tests';
import type { ConstructDiagnostic } from './synth';
import { displayPath } from './tree';

/** The file `App.synth()` writes the tests into, beside `tmkit.out.json`. */
export const TESTS_FILE = 'tmkit.tests.json';

/** What a test asserts (docs/testing.md): every assertion given must hold, at least one is required. */
export type RoutingTestAssertions = Omit<RoutingTestSpec, 'name' | 'profile'>;

export interface RoutingTestProps extends RoutingTestAssertions {
  /** The profile queried: its construct, or its name. */
  readonly profile: { readonly profileName: string } | string;
  /** The test's name, unique in the app. @default the construct id */
  readonly name?: string;
}

const TEST_SYMBOL = Symbol.for('tmkit.constructs.RoutingTest');

/** One routing test: `new RoutingTest(app, 'de-weu', { profile: web, client: '5.9.0.1', expect: ['weu'] })`. */
export class RoutingTest extends Construct {
  static isRoutingTest(x: unknown): x is RoutingTest {
    return typeof x === 'object' && x !== null && TEST_SYMBOL in x;
  }

  readonly testName: string;
  private readonly spec: RoutingTestSpec;

  constructor(scope: Construct, id: string, props: RoutingTestProps) {
    super(scope, id);
    Object.defineProperty(this, TEST_SYMBOL, { value: true });
    const { profile, name, ...assertions } = props;
    this.testName = name ?? id;
    // A private deep copy, in the file's key order: name, profile, then the assertions as given.
    this.spec = JSON.parse(
      JSON.stringify({ name: this.testName, profile: typeof profile === 'string' ? profile : profile.profileName, ...assertions }),
    ) as RoutingTestSpec;
  }

  /** The test as the tests file writes it. */
  toTest(): RoutingTestSpec {
    return JSON.parse(JSON.stringify(this.spec)) as RoutingTestSpec;
  }
}

/** The routing tests under `scope`, in tree order. */
export function findRoutingTests(scope: IConstruct): RoutingTest[] {
  return scope.node.findAll().filter(RoutingTest.isRoutingTest);
}

/** The tests file of the tests under `scope` (`{"tests": [...]}`), or undefined when there are none. */
export function synthTests(scope: IConstruct): { tests: RoutingTestSpec[] } | undefined {
  const tests = findRoutingTests(scope);
  return tests.length === 0 ? undefined : { tests: tests.map((t) => t.toTest()) };
}

/**
 * The tests' problems as construct diagnostics: a bad shape, or a profile, endpoint or `down` entry the
 * document does not have (the same checks as `tmkit test`, which would exit 2 on them).
 */
export function routingTestDiagnostics(scope: IConstruct, document: DocumentInput): ConstructDiagnostic[] {
  const nodes = findRoutingTests(scope);
  if (nodes.length === 0) return [];
  const raw = { tests: nodes.map((t) => t.toTest()) };
  const parsed = parseRoutingTests(raw);
  let profiles: ReturnType<typeof normalize>['profiles'] = [];
  try {
    profiles = normalize(document).profiles;
  } catch {
    // The document's own errors are reported by validation; the tests are checked once it is valid.
  }
  const against = profiles.length > 0 ? checkRoutingTests({ profiles, tests: parsed.tests }) : [];
  const at = (path: string): number => Number(/^tests\[(\d+)\]/.exec(path)?.[1] ?? -1);
  return [
    ...parsed.problems.map((p) => ({ ...p, index: at(p.path) })),
    ...against.map((p) => ({ ...p, index: raw.tests.indexOf(parsed.tests[at(p.path)]!) })),
  ].map((p) => ({
    severity: 'error' as const,
    code: 'ROUTING_TEST_INVALID',
    path: p.path.replace(/^tests\[\d+\]\.?/, ''),
    message: `routing test '${nodes[p.index]?.testName ?? '?'}': ${p.message}`,
    constructPath: p.index >= 0 && nodes[p.index] ? displayPath(nodes[p.index]!) : '/',
  }));
}
