// npm run worker: one fulfilment worker process. Run as many as you like, on any machine that
// reaches the database; each order still finishes exactly once.
import { assertProductionSecrets } from "@/lib/config/env";
import { databaseUrl, closePool } from "@/lib/db/pool";
import { startWorker } from "@/lib/fulfilment/sql/run-worker";

assertProductionSecrets();
// graphile-worker 0.17 leaves a few promises unawaited when the database goes away mid-shutdown of a
// runner (returning its local queue's jobs, for one). The jobs stay locked under the stopped
// runner's id, which the sweep releases once this process lets that id go (run-worker.ts), so
// such a failure is logged, not fatal. Anything else still ends the process.
process.on("unhandledRejection", (reason) => {
  const stack = reason instanceof Error ? (reason.stack ?? "") : "";
  if (!/graphile-worker/.test(stack)) throw reason;
  console.error(`[worker] graphile-worker failed in the background: ${(reason as Error).message}`);
});
const worker = await startWorker({ connectionString: databaseUrl() });
console.log("[worker] fulfilling orders");
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  try {
    await worker.stop();
    await closePool();
  } catch (error) {
    console.error("[worker] stopping failed:", error instanceof Error ? error.message : error);
    process.exit(1);
  }
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Started by npm start (in a process group of its own): when it is gone, so is this process.
process.on("disconnect", stop);
