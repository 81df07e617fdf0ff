import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// How many files run at once (TEST_WORKERS, default 3), each worker on a database and server of its
// own (tests/setup/global-setup.ts): most files wait on processes, clocks and the network, not the CPU.
const SUITE_WORKERS = Number(process.env.TEST_WORKERS || "3");
if (!Number.isInteger(SUITE_WORKERS) || SUITE_WORKERS < 1)
  throw new Error(`TEST_WORKERS must be a whole number from 1, not ${process.env.TEST_WORKERS}`);
const LOG_SCAN = "tests/reliability/no-secrets-in-logs.test.ts";
/** Files that need the machine to themselves, each with the reason; they run one at a time after the others. */
const ALONE: Record<string, string> = {
  "tests/integration/embedded-postgres-password.test.ts":
    "watches the machine's temporary directory for any initdb password file, another file's embedded PostgreSQL's included",
};

/**
 * Within each group, files that start processes and wait on them (tests/reliability, then
 * tests/e2e) first, each part in vitest's own order (longest recorded first, else largest): the
 * longest files are among them, and one started late would end the run alone. On a fresh clone
 * vitest has no durations recorded. (Vitest takes the sequencer from the root config only.)
 */
class WaitingFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const waitRank = (file: TestSpecification) =>
      file.moduleId.includes("/tests/reliability/") ? 0 : file.moduleId.includes("/tests/e2e/") ? 1 : 2;
    const groupOrder = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    // Array sort is stable: within a group and rank, vitest's order stays.
    return (await super.sort(files)).sort((a, b) => groupOrder(a) - groupOrder(b) || waitRank(a) - waitRank(b));
  }
}

/** What every group of files shares; the groups differ in which files they take and how many at once. */
const shared = {
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    setupFiles: ["tests/setup/per-file.ts"],
    // A test's own waits (polls, deliberate scrypt checks, process starts) bound what it waits for;
    // this only stops a hung one, with room for a busy 2-core machine.
    testTimeout: 120_000,
    // expect.poll waits for something another process does (a server action, the worker). Its 1 s
    // default fails on a busy 2-core machine; a poll that succeeds returns as soon as it does.
    expect: { poll: { timeout: 20_000 } },
    hookTimeout: 120_000,
  },
};

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    // Once for the whole run (not per group): a database and a server for each worker.
    globalSetup: ["tests/setup/global-setup.ts"],
    reporters: ["default", "./tests/setup/summary-reporter.ts"],
    sequence: { sequencer: WaitingFilesFirst },
    // The groups run one after another, in groupOrder: first most files, SUITE_WORKERS at once, each
    // worker on its own database and server; then the files that need the machine alone; last the
    // scan of the run's logs, once every other file has logged.
    projects: [
      {
        ...shared,
        test: {
          ...shared.test,
          name: "parallel",
          include: ["tests/**/*.test.ts"],
          exclude: [...configDefaults.exclude, LOG_SCAN, ...Object.keys(ALONE)],
          maxWorkers: SUITE_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        ...shared,
        test: {
          ...shared.test,
          name: "alone",
          include: Object.keys(ALONE),
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        ...shared,
        test: { ...shared.test, name: "log-scan", include: [LOG_SCAN], maxWorkers: 1, sequence: { groupOrder: 3 } },
      },
    ],
  },
});
