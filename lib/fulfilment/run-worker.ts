// The fulfilment worker: graphile-worker runs the jobs; this file adds crash recovery.
//
// graphile-worker leaves a killed worker's jobs locked for 4 hours. Each worker process here holds
// a session advisory lock per graphile worker id on a dedicated connection; PostgreSQL releases
// those locks the moment the process dies. Every worker sweeps regularly: a job locked by a worker
// whose advisory lock can be taken belongs to a dead worker and is unlocked (forceUnlockWorkers),
// so another worker finishes it within seconds.
import { EventEmitter } from "node:events";
import pg from "pg";
import { makeWorkerUtils, run, type Runner, type WorkerEvents, type WorkerUtils } from "graphile-worker";
import { fulfilOrder } from "./fulfil-order";
import { FULFIL_ORDER_TASK } from "./enqueue-fulfilment";

const LIVENESS_NAMESPACE = 72_707_002;
// A job locked this recently may belong to a worker whose liveness lock is still being taken.
const SWEEP_GRACE = "5 seconds";

export interface RunningWorker {
  stop(): Promise<void>;
  sweep(): Promise<string[]>;
}

async function sweepDeadWorkers(pool: pg.Pool, utils: WorkerUtils): Promise<string[]> {
  const { rows } = await pool.query<{ locked_by: string }>(
    `SELECT DISTINCT locked_by FROM graphile_worker._private_jobs
      WHERE locked_by IS NOT NULL AND locked_at < now() - interval '${SWEEP_GRACE}'`,
  );
  if (rows.length === 0) return [];
  const dead: string[] = [];
  const client = await pool.connect();
  try {
    for (const { locked_by } of rows) {
      const probe = await client.query<{ free: boolean }>(`SELECT pg_try_advisory_lock($1, hashtext($2)) AS free`, [
        LIVENESS_NAMESPACE,
        locked_by,
      ]);
      if (probe.rows[0].free) {
        dead.push(locked_by);
        await client.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, [LIVENESS_NAMESPACE, locked_by]);
      }
    }
  } finally {
    client.release();
  }
  if (dead.length) await utils.forceUnlockWorkers(dead);
  return dead;
}

export async function startWorker(options: {
  connectionString: string;
  concurrency?: number;
  sweepIntervalMs?: number;
  log?: (line: string) => void;
}): Promise<RunningWorker> {
  const log = options.log ?? ((line) => console.log(`[worker] ${line}`));
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  pool.on("error", (error) => log(`pool error: ${error.message}`));
  const utils = await makeWorkerUtils({ pgPool: pool });
  await utils.migrate();

  const workerIds = new Set<string>();
  let liveness: pg.Client | undefined;
  let stopping = false;
  const holdLiveness = async () => {
    // (Re)connects and takes a lock for every worker id of this process.
    const client = new pg.Client({ connectionString: options.connectionString });
    client.on("error", (error) => {
      log(`liveness connection lost: ${error.message}`);
      if (liveness === client) liveness = undefined;
      if (!stopping) setTimeout(() => void holdLiveness().catch(() => undefined), 1000);
    });
    await client.connect();
    liveness = client;
    for (const id of workerIds) await client.query(`SELECT pg_advisory_lock($1, hashtext($2))`, [LIVENESS_NAMESPACE, id]);
  };
  await holdLiveness();

  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  events.on("worker:create", ({ worker }) => {
    workerIds.add(worker.workerId);
    void liveness?.query(`SELECT pg_advisory_lock($1, hashtext($2))`, [LIVENESS_NAMESPACE, worker.workerId]).catch(() => undefined);
  });

  const runner: Runner = await run({
    connectionString: options.connectionString,
    concurrency: options.concurrency ?? Number(process.env.WORKER_CONCURRENCY ?? 10),
    noHandleSignals: true,
    pollInterval: 1000,
    events,
    taskList: {
      [FULFIL_ORDER_TASK]: async (payload) => {
        await fulfilOrder((payload as { orderId: number }).orderId);
      },
    },
  });

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
  const timer = setInterval(() => void sweep(), options.sweepIntervalMs ?? 5000);

  return {
    sweep,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await runner.stop();
      await liveness?.end().catch(() => undefined);
      await utils.release();
      await pool.end();
    },
  };
}
