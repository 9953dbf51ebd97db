export {
  parseRoutingTests,
  checkTestsAgainst,
  DEFAULT_TOLERANCE,
  type RoutingTest,
  type TestFileProblem,
} from './schema';
export { runRoutingTests, checkRoutingTests, readRoutingTests, testQuery, traceLines, type RoutingTestResult, type RunInput } from './run';
export {
  renderTestsText,
  renderTestsJson,
  renderTestsJunit,
  renderProblems,
  summary,
  xmlEscape,
  planTestsSummary,
  planTestsLines,
  planTestsFailed,
} from './render';
export type { PlanTests } from './types';
