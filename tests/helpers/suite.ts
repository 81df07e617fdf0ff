// What the running test file's vitest worker was given by tests/setup/global-setup.ts: each worker
// has a database and a web server of its own, so files running at once never see each other's rows.
import { inject } from "vitest";

/** This worker's index into the suite's databases and servers (VITEST_POOL_ID runs 1..maxWorkers). */
function worker(): number {
  const id = Number(process.env.VITEST_POOL_ID ?? "1");
  const count = inject("databaseUrls").length;
  if (!Number.isInteger(id) || id < 1 || id > count)
    throw new Error(`VITEST_POOL_ID ${process.env.VITEST_POOL_ID} is not one of the suite's ${count} workers`);
  return id - 1;
}

/** The database this worker's files use (reset by each file) and its server serves. */
export function suiteDatabaseUrl(): string {
  return inject("databaseUrls")[worker()]!;
}

/** The web server on this worker's database. */
export function suiteBaseUrl(): string {
  return inject("baseUrls")[worker()]!;
}

/** Where this worker's web server writes its output (its request lines among it). */
export function suiteServerLogFile(): string {
  return inject("serverLogFiles")[worker()]!;
}
