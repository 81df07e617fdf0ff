// npm run worker: one fulfilment worker process. Run as many as you like, on any machine that
// reaches the database; each order still finishes exactly once.
import { assertProductionSecrets, env } from "@/lib/config/env";
import { databaseUrl, closePool } from "@/lib/db/pool";
import { startWorker } from "@/lib/fulfilment/sql/run-worker";
import { logger, messageOf, nameProcess } from "@/lib/observability/logger";
import { serveMetrics } from "@/lib/observability/serve-metrics";

nameProcess("worker");
const log = logger();
assertProductionSecrets();
// graphile-worker 0.17 leaves a few promises unawaited when the database goes away mid-shutdown of a
// runner (returning its local queue's jobs, for one). The jobs stay locked under the stopped
// runner's id, which the sweep releases once this process lets that id go (run-worker.ts), so
// such a failure is logged, not fatal. Anything else still ends the process.
process.on("unhandledRejection", (reason) => {
  const stack = reason instanceof Error ? (reason.stack ?? "") : "";
  if (!/graphile-worker/.test(stack)) throw reason;
  log.error(`graphile-worker failed in the background: ${(reason as Error).message}`);
});
const config = env();
// Each worker on a port of its own: WORKER_METRICS_PORT (0 picks one and logs it).
const metrics =
  config.metrics.ports.worker === undefined
    ? undefined
    : await serveMetrics(config.metrics.host, config.metrics.ports.worker);
// The worker's lines say by their words whether something failed (run-worker.ts writes plain lines).
const worker = await startWorker({
  connectionString: databaseUrl(),
  log: (line) => (/fail|error|lost|no new jobs/i.test(line) ? log.warn(line) : log.info(line)),
});
log.info("fulfilling orders");
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  try {
    await worker.stop();
    await metrics?.close();
    await closePool();
  } catch (error) {
    log.error(`stopping failed: ${messageOf(error)}`);
    process.exit(1);
  }
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Started by npm start (in a process group of its own): when it is gone, so is this process.
process.on("disconnect", stop);
