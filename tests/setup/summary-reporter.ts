// Ends the run with a plain "N passed, N failed, N skipped" line that any CI log reader understands,
// and lists every skipped test so none is skipped silently.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    const skipped: string[] = [];
    for (const module of testModules) {
      if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped.push(`${module.moduleId.replace(process.cwd() + "/", "")} > ${test.fullName}`);
      }
    }
    for (const name of skipped) console.log(`skipped: ${name}`);
    console.log(`\n${passed} passed, ${failed} failed, ${skipped.length} skipped`);
  }
}
