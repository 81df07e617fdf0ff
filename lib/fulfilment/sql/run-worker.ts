// The fulfilment worker: graphile-worker runs the jobs; this file adds crash recovery. graphile-worker
// leaves a killed worker's jobs locked for 4 hours, so each process holds a session advisory lock per
// worker id (released by PostgreSQL when the process dies), and every worker regularly unlocks the
// jobs and webhook claims of ids whose lock is free (forceUnlockWorkers), so others finish them.
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import pg from "pg";
import {
  Logger,
  type LogLevel,
  makeWorkerUtils,
  parseCronItems,
  run,
  type Runner,
  type WorkerEvents,
  type WorkerUtils,
} from "graphile-worker";
import { env, type Env } from "../../config/env";
import { getSupplier } from "../../suppliers/get-supplier";
import { fulfilOrder } from "./fulfil-order";
import { FULFIL_ORDER_TASK } from "./enqueue-fulfilment";
import { webhookTasks } from "../../webhooks/webhook-tasks";
import {
  listClaimingDispatchers,
  releaseDeadClaims,
  startWebhookDispatcher,
  type WebhookDispatcher,
} from "../../webhooks/sql/dispatch-webhooks";
import { sql } from "../../db/run-sql";
import { webhookPolicyFromEnv } from "../../webhooks/check-destination";
import { firstRow } from "../../db/first-row";

const LIVENESS_NAMESPACE = 72_707_002;
// A job locked this recently may belong to a worker whose liveness lock is still being taken.
const SWEEP_GRACE = "5 seconds";

export interface RunningWorker {
  stop(): Promise<void>;
  sweep(): Promise<string[]>;
}

// Worker and dispatcher ids whose liveness lock is free: their processes are gone.
async function findDeadHolders(pool: pg.Pool, candidates: string[]): Promise<string[]> {
  if (candidates.length === 0) return [];
  const dead: string[] = [];
  const client = await pool.connect();
  try {
    for (const id of candidates) {
      const probe = await client.query<{ free: boolean }>(
        sql`SELECT pg_try_advisory_lock(${LIVENESS_NAMESPACE}, hashtext(${id})) AS free`,
      );
      if (firstRow(probe.rows, "pg_try_advisory_lock").free) {
        dead.push(id);
        await client.query(sql`SELECT pg_advisory_unlock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
      }
    }
  } finally {
    client.release();
  }
  return dead;
}

async function sweepDeadWorkers(pool: pg.Pool, utils: WorkerUtils): Promise<string[]> {
  // graphile_worker.jobs is the library's stable, public view of its jobs (its tables are private).
  const { rows } = await pool.query<{ locked_by: string }>(
    `SELECT DISTINCT locked_by FROM graphile_worker.jobs
      WHERE locked_by IS NOT NULL AND locked_at < now() - interval '${SWEEP_GRACE}'`,
  );
  const deadWorkers = await findDeadHolders(
    pool,
    rows.map((r) => r.locked_by),
  );
  if (deadWorkers.length) await utils.forceUnlockWorkers(deadWorkers);
  // A dispatcher's id is locked before its first claim, so no grace is needed here.
  const deadDispatchers = await findDeadHolders(pool, await listClaimingDispatchers(pool));
  await releaseDeadClaims(pool, deadDispatchers);
  return [...deadWorkers, ...deadDispatchers];
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
  const log = options.log ?? ((line) => console.log(`[worker] ${line}`));
  const config = options.config ?? env();
  const configured = config.worker;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  // Idle and checked-out clients both get a handler: a dropped connection must not crash the
  // process (graphile-worker checks for both and warns without them).
  pool.on("error", (error) => log(`pool error: ${error.message}`));
  pool.on("connect", (client) => client.on("error", (error) => log(`pool client error: ${error.message}`)));
  const utils = await makeWorkerUtils({ pgPool: pool });
  await utils.migrate();

  const workerIds = new Set<string>();
  let liveness: pg.Client | undefined;
  let stopping = false;
  // One query at a time on the liveness connection: graphile creates its workers all at once, and
  // pg refuses (deprecates) a query sent while the client is still busy with another.
  let livenessQueue: Promise<unknown> = Promise.resolve();
  const onLiveness = (work: () => Promise<unknown>) => {
    livenessQueue = livenessQueue.then(work).catch(() => undefined);
    return livenessQueue;
  };
  const lockWorkerId = (client: pg.Client, id: string) =>
    client.query(sql`SELECT pg_advisory_lock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
  const holdLiveness = async () => {
    // (Re)connects and takes a lock for every worker id of this process.
    const client = new pg.Client({ connectionString: options.connectionString });
    client.on("error", (error) => {
      if (stopping) return;
      log(`liveness connection lost: ${error.message}`);
      if (liveness === client) liveness = undefined;
      setTimeout(() => void holdLiveness().catch(() => undefined), 1000);
    });
    await client.connect();
    await onLiveness(async () => {
      liveness = client;
      for (const id of workerIds) await lockWorkerId(client, id);
    });
  };
  await holdLiveness();

  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  const holdId = (id: string) => {
    workerIds.add(id);
    return onLiveness(async () => {
      if (liveness) await lockWorkerId(liveness, id);
    });
  };
  events.on("worker:create", ({ worker }) => void holdId(worker.workerId));
  // With a local queue, jobs are locked under the pool's id rather than a worker's.
  events.on("pool:create", ({ workerPool }) => void holdId(workerPool.id));

  // What both runners share: no signal handling (the process stops them), no cron, quiet logs.
  const shared = {
    connectionString: options.connectionString,
    noHandleSignals: true,
    // No cron: without this graphile-worker looks for a ./crontab file and says it found none.
    parsedCronItems: parseCronItems([]),
    pollInterval: 1000,
    events,
    // Warnings and errors only: "worker connected" and the like are nothing a user acts on.
    logger: new Logger((scope) => (level, message) => {
      if (level === ("error" as LogLevel) || level === ("warning" as LogLevel))
        log(`${level}: ${message}${scope.taskIdentifier ? ` (${scope.taskIdentifier}, job ${scope.jobId})` : ""}`);
    }),
  };
  const concurrency = options.concurrency ?? configured.concurrency;
  const runner: Runner = await run({
    ...shared,
    concurrency,
    // graphile-worker's batching: jobs are locked and completed many per query, not one commit each.
    // They are locked under the pool's id, which the liveness lock covers too (pool:create above).
    preset: { worker: { localQueue: { size: concurrency * 2 }, completeJobBatchDelay: 0 } },
    taskList: {
      [FULFIL_ORDER_TASK]: async (payload) => {
        const { orderId } = payload as { orderId: number };
        await fulfilOrder(orderId, config.fulfilment, (name) => getSupplier(name, config));
      },
    },
  });
  // graphile's runner for the webhook task that tells a holder an endpoint was disabled.
  const webhookRunner: Runner = await run({ ...shared, concurrency: 1, taskList: webhookTasks });

  // Deliveries get slots of their own, so a receiver that holds a request for its 15 s does not
  // take a slot an order is waiting for, and a pool of their own with synchronous_commit off
  // (dispatch-webhooks.ts says why that is safe).
  const webhookConcurrency = options.webhookConcurrency ?? configured.webhookConcurrency;
  let dispatcher: WebhookDispatcher | undefined;
  let dispatchPool: pg.Pool | undefined;
  if (webhookConcurrency > 0) {
    dispatchPool = new pg.Pool({
      connectionString: options.connectionString,
      max: Math.min(webhookConcurrency, 4),
      options: "-c synchronous_commit=off",
    });
    dispatchPool.on("error", (error) => log(`webhook pool error: ${error.message}`));
    dispatchPool.on("connect", (client) =>
      client.on("error", (error) => log(`webhook pool client error: ${error.message}`)),
    );
    const dispatcherId = `webhooks-${randomUUID()}`;
    // Held before the first claim, so the sweep never takes a live dispatcher for a dead one.
    await holdId(dispatcherId);
    dispatcher = startWebhookDispatcher({
      db: dispatchPool,
      id: dispatcherId,
      concurrency: webhookConcurrency,
      pollIntervalMs: options.webhookPollIntervalMs ?? configured.webhookPollIntervalMs,
      delivery: { policy: webhookPolicyFromEnv(undefined, config) },
      log: (line) => log(`webhooks: ${line}`),
    });
  }

  const sweep = async () => {
    try {
      const dead = await sweepDeadWorkers(pool, utils);
      if (dead.length) log(`released jobs of ${dead.length} dead worker(s)`);
      return dead;
    } catch (error) {
      log(`sweep failed: ${(error as Error).message}`);
      return [];
    }
  };
  await sweep();
  const timer = setInterval(() => void sweep(), options.sweepIntervalMs ?? configured.sweepIntervalMs);

  return {
    sweep,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await Promise.all([runner.stop(), webhookRunner.stop(), dispatcher?.stop()]);
      await dispatchPool?.end();
      await liveness?.end().catch(() => undefined);
      await utils.release();
      await pool.end();
    },
  };
}
