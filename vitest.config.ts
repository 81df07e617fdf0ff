import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Vitest's own order, except that the scan of the run's logs goes last, once every other file has logged. */
class LogScanLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = (file: TestSpecification) => file.moduleId.endsWith("no-secrets-in-logs.test.ts");
    return [...sorted.filter((file) => !last(file)), ...sorted.filter(last)];
  }
}

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/**/*.test.ts"],
    // Test files share one database and one server; each starts from a clean state.
    fileParallelism: false,
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    testTimeout: 30_000,
    // expect.poll waits for something another process does (a server action, the worker). Its 1 s
    // default fails on a busy 2-core machine; a poll that succeeds returns as soon as it does.
    expect: { poll: { timeout: 20_000 } },
    hookTimeout: 120_000,
    reporters: ["default", "./tests/setup/summary-reporter.ts"],
    sequence: { sequencer: LogScanLast },
  },
});
