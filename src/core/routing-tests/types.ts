/** The result types of routing tests, apart so that the plan report can carry them (no import cycle). */

/** A problem of a tests file: its JSON path (`tests[1].down[0]`) and what is wrong. */
export interface TestFileProblem {
  path: string;
  message: string;
}

export interface RoutingTestResult {
  name: string;
  profile: string;
  passed: boolean;
  /** One line: what was checked and, on failure, what was answered instead. */
  message: string;
  /** On failure: why (the decision trace, the failover formula, the scenarios). */
  details: string[];
}

/** The routing tests a plan ran (`tmkit plan` with a tests file beside the document). */
export interface PlanTests {
  /** The tests file, as the user named it. */
  file: string;
  results: RoutingTestResult[];
  /** A bad tests file: its problems, and then no test ran. */
  problems: TestFileProblem[];
}
