// What the running test file's vitest worker was given by tests/setup/global-setup.ts: each worker
// has a database and a web server of its own, so files running at once never see each other's rows.
import { inject } from "vitest";

/** What this worker was given (VITEST_POOL_ID runs 1..maxWorkers). */
function worker() {
  const workers = inject("workers");
  const id = Number(process.env.VITEST_POOL_ID ?? "1");
  const given = Number.isInteger(id) ? workers[id - 1] : undefined;
  if (!given)
    throw new Error(`VITEST_POOL_ID ${process.env.VITEST_POOL_ID} is not one of the suite's ${workers.length} workers`);
  return given;
}

/** The database this worker's files use (reset by each file) and its server serves. */
export function suiteDatabaseUrl(): string {
  return worker().databaseUrl;
}

/** The web server on this worker's database. */
export function suiteBaseUrl(): string {
  return worker().baseUrl;
}

/** Where this worker's web server writes its output (its request lines among it). */
export function suiteServerLogFile(): string {
  return worker().serverLogFile;
}
