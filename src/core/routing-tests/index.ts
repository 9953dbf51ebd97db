export {
  parseRoutingTests,
  checkTestsAgainst,
  DEFAULT_TOLERANCE,
  type RoutingTest,
  type TestFileProblem,
} from './schema';
export { runRoutingTests, checkRoutingTests, testQuery, traceLines, type RoutingTestResult, type RunInput } from './run';
export { renderTestsText, renderTestsJson, renderTestsJunit, renderProblems, summary, xmlEscape } from './render';
