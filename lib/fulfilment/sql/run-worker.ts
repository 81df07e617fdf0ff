// The fulfilment worker: graphile-worker runs the jobs; the parts around it add crash recovery, one
// part a file (the ones that talk to PostgreSQL here in sql/, the others in lib/fulfilment/):
// - hold-liveness-locks.ts: each id this process locks jobs under is held as a session advisory
//   lock, which PostgreSQL lets go when the process dies;
// - sweep-dead-workers.ts: every worker regularly releases the jobs and webhook claims of ids whose
//   lock is free, so others finish them (graphile-worker would leave them locked for 4 hours);
// - run-job-generations.ts: graphile's runners, started afresh as a generation after an outage; a
//   stopped generation holds its ids until its last job has returned;
// - ../recover-from-outage.ts: an outage of any length is ridden out, never a crash: no new job is
//   taken until the liveness locks are held again (../retry-until-it-works.ts: the backoff);
// - start-webhook-deliveries.ts and ../start-periodic-looks.ts: deliveries in slots of their own;
//   the sweep and the stock alerts on a timer.
import pg from "pg";
import { makeWorkerUtils } from "graphile-worker";
import { env, type Env } from "../../config/env";
import { wakeWebhookDispatchers } from "../../webhooks/sql/dispatch-webhooks";
import { yieldToOrders } from "../../webhooks/yield-to-orders";
import { LivenessLocks } from "./hold-liveness-locks";
import { jobGenerations } from "./run-job-generations";
import { recoverFromOutage } from "../recover-from-outage";
import { retryUntilItWorks } from "../retry-until-it-works";
import { startPeriodicLooks } from "../start-periodic-looks";
import { startWebhookDeliveries } from "./start-webhook-deliveries";
import { sweepDeadWorkers } from "./sweep-dead-workers";
import { logger } from "../../observability/logger";

// Connecting at the start (the database may still be down) backs off up to this.
const CONNECT_RETRY_MAX_MS = 5_000;

export interface RunningWorker {
  stop(): Promise<void>;
  sweep(): Promise<string[]>;
}

/** The worker's own connections (the queue's utilities and the sweep), which survive an outage. */
function workerPool(connectionString: string, log: (line: string) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 2 });
  // Idle and checked-out clients both get a handler: a dropped connection must not crash the
  // process (graphile-worker checks for both and warns without them).
  pool.on("error", (error) => log(`pool error: ${error.message}`));
  pool.on("connect", (client) => client.on("error", (error) => log(`pool client error: ${error.message}`)));
  return pool;
}

/** graphile-worker's utilities, its schema migrated: the start waits for the database. */
async function connectToQueue(pool: pg.Pool, log: (line: string) => void) {
  const connect = async () => {
    const made = await makeWorkerUtils({ pgPool: pool });
    try {
      await made.migrate();
      return made;
    } catch (error) {
      await Promise.resolve(made.release()).catch(() => undefined);
      throw error;
    }
  };
  const stopping = () => false;
  return (await retryUntilItWorks("connecting to the database", connect, {
    maxMs: CONNECT_RETRY_MAX_MS,
    log,
    stopping,
  }))!;
}

export async function startWorker(options: {
  connectionString: string;
  /** Orders at once (WORKER_CONCURRENCY). */
  concurrency?: number;
  /** Webhook deliveries at once (WEBHOOK_CONCURRENCY), apart from the orders' slots; 0 delivers none. */
  webhookConcurrency?: number;
  /** How often an idle webhook dispatcher looks for deliveries (WEBHOOK_POLL_MS). */
  webhookPollIntervalMs?: number;
  /** How often dead workers' jobs are looked for (WORKER_SWEEP_MS). */
  sweepIntervalMs?: number;
  log?: (line: string) => void;
  /** The configuration to run with: this process's unless given. */
  config?: Env;
}): Promise<RunningWorker> {
  const { connectionString } = options;
  const log = options.log ?? ((line) => logger("worker").info(line));
  const config = options.config ?? env();
  const configured = config.worker;
  let isStopping = false;
  const stopping = () => isStopping;
  const pool = workerPool(connectionString, log);
  const utils = await connectToQueue(pool, log);

  const liveness = new LivenessLocks({
    connectionString,
    log,
    stopping,
    onLost: (reason) => void recovery.recover(reason),
  });
  await liveness.hold();
  const concurrency = options.concurrency ?? configured.concurrency;
  const webhookConcurrency = options.webhookConcurrency ?? configured.webhookConcurrency;
  const orderPriority = yieldToOrders({
    // Ten orders a second per slot: a backlog being drained, not a trickle.
    burstOrdersPerSecond: concurrency * 10,
    slots: concurrency,
    wake: wakeWebhookDispatchers,
    maxCredit: webhookConcurrency,
    batch: webhookConcurrency,
  });
  const generations = jobGenerations({ connectionString, config, concurrency, orderPriority, liveness, log });
  const recovery = recoverFromOutage({ generations, liveness, log, stopping });
  await recovery.recover();

  const deliveries = await startWebhookDeliveries({
    connectionString,
    config,
    concurrency: webhookConcurrency,
    pollIntervalMs: options.webhookPollIntervalMs ?? configured.webhookPollIntervalMs,
    gate: orderPriority,
    liveness,
    log,
  });
  const sweep = sweepDeadWorkers({ pool, utils, log });
  const looks = await startPeriodicLooks({
    sweep,
    intervalMs: options.sweepIntervalMs ?? configured.sweepIntervalMs,
    holdLooks: () => recovery.recovering() || isStopping,
    log,
  });

  return {
    sweep,
    async stop() {
      isStopping = true;
      const looking = looks.stop();
      await recovery.settled();
      await Promise.all([recovery.drainAll(), deliveries?.stop(), looking]);
      await liveness.end();
      await utils.release();
      await pool.end();
    },
  };
}
