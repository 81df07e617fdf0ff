// Ends the run with a plain "N passed, N failed, N skipped" line that any CI log reader understands,
// and lists every skipped test so none is skipped silently.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    const skipped: string[] = [];
    for (const testModule of testModules) {
      let failedHere = 0;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else {
          // A test that skipped itself at run time says why (ctx.skip(note)): the reason goes beside its name.
          const result = test.result();
          const note = result.state === "skipped" ? result.note : undefined;
          skipped.push(
            `${testModule.moduleId.replace(process.cwd() + "/", "")} > ${test.fullName}${note ? ` (${note})` : ""}`,
          );
        }
      }
      // A file that failed with no failed test failed outside its tests (an import, a beforeAll):
      // it counts as one failure, so the line never reads "0 failed" for a failed run.
      failed += testModule.state() === "failed" && failedHere === 0 ? 1 : failedHere;
    }
    for (const name of skipped) console.log(`skipped: ${name}`);
    console.log(`\n${passed} passed, ${failed} failed, ${skipped.length} skipped`);
  }
}
