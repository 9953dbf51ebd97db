// Prints jest's totals as the plain last line "N passed, N failed" that CI reads, and fails a run
// that executed no test at all (a green run with zero tests would hide a broken test setup).
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const passed = results.numPassedTests;
    const failed = results.numFailedTests;
    const skipped = results.numPendingTests + results.numTodoTests;
    if (results.numTotalTests === 0) {
      process.exitCode = 1;
      process.stdout.write('no tests were executed: the test setup is broken\n');
    }
    const line = `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`;
    // Jest prints its own summary after every reporter's onRunComplete; write ours at exit so it is last.
    process.once('exit', () => process.stdout.write(line));
  }
}
module.exports = SummaryReporter;
