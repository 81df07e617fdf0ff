// The fulfilment worker: graphile-worker runs the jobs; this file adds crash recovery. graphile-worker
// leaves a killed worker's jobs locked for 4 hours, so each process holds a session advisory lock per
// worker id (released by PostgreSQL when the process dies), and every worker regularly unlocks the
// jobs and webhook claims of ids whose lock is free (forceUnlockWorkers), so others finish them.
//
// A database outage of any length is ridden out, never a crash: the start waits for the database,
// a lost liveness connection is taken again with backoff until it succeeds, and graphile's runners
// (which stop when they cannot record a job's end) are stopped and started afresh. While the
// liveness locks are not held no new job is taken; a runner's ids stay locked until its last job
// has returned, and only then are they let go, so the sweep releases what it left locked. A
// stopped generation drains beside its successor: nothing it waits for holds the new one back.
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
import { alertLowStock } from "../../catalog/alert-low-stock";
import { fulfilOrder } from "./fulfil-order";
import { FULFIL_ORDER_TASK } from "./enqueue-fulfilment";
import { webhookTasks } from "../../webhooks/webhook-tasks";
import { telegramTasks } from "../../telegram/telegram-tasks";
import {
  listClaimingDispatchers,
  releaseDeadClaims,
  startWebhookDispatcher,
  wakeWebhookDispatchers,
  type WebhookDispatcher,
} from "../../webhooks/sql/dispatch-webhooks";
import { sql } from "../../db/run-sql";
import { webhookPolicyFromEnv } from "../../webhooks/check-destination";
import { yieldToOrders } from "../../webhooks/yield-to-orders";
import { firstRow } from "../../db/first-row";

const LIVENESS_NAMESPACE = 72_707_002;
// A job locked this recently may belong to a worker whose liveness lock is still being taken.
const SWEEP_GRACE = "5 seconds";
// After a database restart every worker has lost its locks and takes them again within
// LIVENESS_RETRY_MAX_MS of the database's return: a sweep calls an id dead only when its lock has
// stayed free this long, so a live worker still reconnecting is never taken for a dead one.
const LIVENESS_CONFIRM_MS = 10_000;
const LIVENESS_RETRY_MAX_MS = 2_000;
// Starting graphile's runners again (the database may still be down) backs off up to this.
const RESTART_RETRY_MAX_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Exponential backoff with jitter: 250 ms, 500 ms, ... up to `maxMs`. */
const backoff = (attempt: number, maxMs: number) =>
  Math.round(Math.min(maxMs, 250 * 2 ** Math.min(attempt, 10)) * (0.5 + Math.random() / 2));

export interface RunningWorker {
  stop(): Promise<void>;
  sweep(): Promise<string[]>;
}

// Worker and dispatcher ids whose liveness lock is free and has stayed free for LIVENESS_CONFIRM_MS
// (`suspects`: when each was first seen free): their processes are gone.
async function findDeadHolders(pool: pg.Pool, candidates: string[], suspects: Map<string, number>): Promise<string[]> {
  for (const id of suspects.keys()) if (!candidates.includes(id)) suspects.delete(id);
  if (candidates.length === 0) return [];
  const dead: string[] = [];
  const now = Date.now();
  const client = await pool.connect();
  try {
    for (const id of candidates) {
      const probe = await client.query<{ free: boolean }>(
        sql`SELECT pg_try_advisory_lock(${LIVENESS_NAMESPACE}, hashtext(${id})) AS free`,
      );
      if (firstRow(probe.rows, "pg_try_advisory_lock").free) {
        await client.query(sql`SELECT pg_advisory_unlock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
        const since = suspects.get(id) ?? now;
        suspects.set(id, since);
        if (now - since >= LIVENESS_CONFIRM_MS) dead.push(id);
      } else suspects.delete(id);
    }
  } finally {
    client.release();
  }
  return dead;
}

async function sweepDeadWorkers(
  pool: pg.Pool,
  utils: WorkerUtils,
  suspects: { workers: Map<string, number>; dispatchers: Map<string, number> },
): Promise<string[]> {
  // graphile_worker.jobs is the library's stable, public view of its jobs (its tables are private).
  const { rows } = await pool.query<{ locked_by: string }>(
    `SELECT DISTINCT locked_by FROM graphile_worker.jobs
      WHERE locked_by IS NOT NULL AND locked_at < now() - interval '${SWEEP_GRACE}'`,
  );
  const deadWorkers = await findDeadHolders(
    pool,
    rows.map((r) => r.locked_by),
    suspects.workers,
  );
  if (deadWorkers.length) await utils.forceUnlockWorkers(deadWorkers);
  // A dispatcher's id is locked before its first claim, so no grace is needed here.
  const deadDispatchers = await findDeadHolders(pool, await listClaimingDispatchers(pool), suspects.dispatchers);
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
  let stopping = false;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 2 });
  // Idle and checked-out clients both get a handler: a dropped connection must not crash the
  // process (graphile-worker checks for both and warns without them).
  pool.on("error", (error) => log(`pool error: ${error.message}`));
  pool.on("connect", (client) => client.on("error", (error) => log(`pool client error: ${error.message}`)));

  /** Runs `work` until it succeeds, waiting with backoff in between: the database may be down. */
  const untilItWorks = async <T>(what: string, work: () => Promise<T>, maxMs: number): Promise<T | undefined> => {
    for (let attempt = 0; ; attempt++) {
      if (stopping) return undefined;
      try {
        const result = await work();
        if (attempt > 0) log(`${what}: done after ${attempt + 1} attempts`);
        return result;
      } catch (error) {
        const delay = backoff(attempt, maxMs);
        // The first failure and then one line in ten: an outage of minutes must not flood the log.
        if (attempt % 10 === 0) log(`${what} failed (${(error as Error).message}); trying again in ${delay} ms`);
        await sleep(delay);
      }
    }
  };

  const utils = (await untilItWorks(
    "connecting to the database",
    async () => {
      const made = await makeWorkerUtils({ pgPool: pool });
      try {
        await made.migrate();
        return made;
      } catch (error) {
        await Promise.resolve(made.release()).catch(() => undefined);
        throw error;
      }
    },
    RESTART_RETRY_MAX_MS,
  ))!;

  // The ids this process answers for: a runner's stay here until its last job has returned.
  const workerIds = new Set<string>();
  let liveness: pg.Client | undefined;
  // The ids locked on `liveness` (a lock taken twice would need two unlocks).
  let lockedIds = new Set<string>();
  // One query at a time on the liveness connection: graphile creates its workers all at once, and
  // pg refuses (deprecates) a query sent while the client is still busy with another.
  let livenessQueue: Promise<unknown> = Promise.resolve();
  const onLiveness = (work: () => Promise<unknown>) => {
    livenessQueue = livenessQueue.then(work).catch(() => undefined);
    return livenessQueue;
  };
  const lockAll = async (client: pg.Client) => {
    for (const id of workerIds) {
      if (lockedIds.has(id)) continue;
      await client.query(sql`SELECT pg_advisory_lock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
      lockedIds.add(id);
    }
  };
  const holdId = (id: string) => {
    workerIds.add(id);
    return onLiveness(async () => {
      if (liveness) await lockAll(liveness);
    });
  };
  const letGo = (ids: string[]) => {
    for (const id of ids) workerIds.delete(id);
    return onLiveness(async () => {
      for (const id of ids) {
        if (!liveness || !lockedIds.delete(id)) continue;
        await liveness.query(sql`SELECT pg_advisory_unlock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
      }
    });
  };

  let livenessTaking: Promise<unknown> | undefined;
  /** Resolves once every id is locked on a live connection, however long the database is away. */
  const holdLiveness = (): Promise<unknown> =>
    liveness
      ? Promise.resolve()
      : (livenessTaking ??= untilItWorks(
          "taking the liveness locks",
          async () => {
            const client = new pg.Client({ connectionString: options.connectionString, connectionTimeoutMillis: 5000 });
            client.on("error", (error) => {
              if (stopping || liveness !== client) return;
              liveness = undefined;
              lockedIds = new Set();
              void client.end().catch(() => undefined);
              void recover(`liveness connection lost: ${error.message}`);
            });
            try {
              await client.connect();
              await onLiveness(async () => {
                lockedIds = new Set();
                await lockAll(client);
                liveness = client;
              });
              // onLiveness swallows errors: a lock that was not taken shows here.
              if (liveness !== client) throw new Error("the locks were not taken");
            } catch (error) {
              await client.end().catch(() => undefined);
              throw error;
            }
          },
          LIVENESS_RETRY_MAX_MS,
        ).finally(() => (livenessTaking = undefined)));
  await holdLiveness();

  const concurrency = options.concurrency ?? configured.concurrency;
  const webhookConcurrency = options.webhookConcurrency ?? configured.webhookConcurrency;
  const orderPriority = yieldToOrders({
    // Ten orders a second per slot: a backlog being drained, not a trickle.
    burstOrdersPerSecond: concurrency * 10,
    wake: wakeWebhookDispatchers,
    maxCredit: webhookConcurrency,
    batch: webhookConcurrency,
  });
  // What both runners share: no signal handling (the process stops them), no cron, quiet logs.
  const shared = {
    noHandleSignals: true,
    // No cron: without this graphile-worker looks for a ./crontab file and says it found none.
    parsedCronItems: parseCronItems([]),
    pollInterval: 1000,
    // Warnings and errors only: "worker connected" and the like are nothing a user acts on.
    logger: new Logger((scope) => (level, message) => {
      if (level === ("error" as LogLevel) || level === ("warning" as LogLevel))
        log(`${level}: ${message}${scope.taskIdentifier ? ` (${scope.taskIdentifier}, job ${scope.jobId})` : ""}`);
    }),
  };

  /** One start of graphile's two runners, with the ids they lock jobs under and their jobs in hand. */
  interface Generation {
    runners: Runner[];
    ids: Set<string>;
    inFlight: number;
    /** The runners' connections, ended once they have stopped. */
    pools: pg.Pool[];
  }
  let current: Generation | undefined;
  // Stopped generations still waiting for their jobs to return.
  const draining = new Set<Promise<void>>();

  /**
   * A runner's pool, with its sessions' `settings` (libpq options). Its connection attempts time out
   * (PG_CONNECT_TIMEOUT_MS) like every pool of the service: an attempt that hangs would otherwise
   * hold a start or a stop for good.
   */
  const runnerPool = (generation: Generation, settings?: string) => {
    const runnerDb = new pg.Pool({
      connectionString: options.connectionString,
      max: 10,
      connectionTimeoutMillis: config.pgConnectTimeoutMs,
      options: settings,
    });
    // Idle and checked-out clients both, as for the worker's own pool.
    runnerDb.on("error", (error) => log(`runner pool error: ${error.message}`));
    runnerDb.on("connect", (client) =>
      client.on("error", (error) => log(`runner pool client error: ${error.message}`)),
    );
    generation.pools.push(runnerDb);
    return runnerDb;
  };

  const startRunners = async (): Promise<Generation> => {
    const generation: Generation = { runners: [], ids: new Set(), inFlight: 0, pools: [] };
    // Each start gets its own emitter, so the ids it reports belong to this generation.
    const events: WorkerEvents = new EventEmitter() as WorkerEvents;
    const hold = (id: string) => {
      generation.ids.add(id);
      void holdId(id);
    };
    events.on("worker:create", ({ worker }) => hold(worker.workerId));
    // With a local queue, jobs are locked under the pool's id rather than a worker's.
    events.on("pool:create", ({ workerPool }) => hold(workerPool.id));
    const counted =
      <P>(task: (payload: P) => Promise<void>) =>
      async (payload: P) => {
        generation.inFlight++;
        try {
          await task(payload);
        } finally {
          generation.inFlight--;
          orderPriority.orderFinished();
        }
      };
    try {
      generation.runners.push(
        await run({
          ...shared,
          // The queue's own bookkeeping (locking, completing, rescheduling a job) commits without
          // waiting for the WAL flush. A job's order changes commit durably, after its lock, and a
          // flush takes every earlier commit with it: a database crash can lose only a lock nothing
          // was done under yet, or a completion, whose job runs again and finds its order settled.
          pgPool: runnerPool(generation, "-c synchronous_commit=off"),
          events,
          concurrency,
          // graphile-worker's batching: jobs are locked many per query, and the jobs finished within
          // 10 ms are completed in one. Failures are batched too: unbatched, a failure that cannot
          // be recorded (database down) is a promise nobody awaits, and its rejection would end the
          // process.
          preset: {
            worker: { localQueue: { size: concurrency * 2 }, completeJobBatchDelay: 10, failJobBatchDelay: 0 },
          },
          taskList: {
            [FULFIL_ORDER_TASK]: counted(async (payload) => {
              const { orderId } = payload as { orderId: number };
              await fulfilOrder(orderId, config.fulfilment, config);
            }),
          },
        }),
      );
      // graphile's runner for the bot messages: a holder's endpoint was disabled, the owners' alerts.
      generation.runners.push(
        await run({
          ...shared,
          pgPool: runnerPool(generation),
          events,
          concurrency: 1,
          taskList: { ...webhookTasks, ...telegramTasks },
        }),
      );
    } catch (error) {
      await drain(generation);
      throw error;
    }
    // A runner stops by itself when it cannot record a job's end (the database went away): the
    // whole generation is then replaced.
    for (const runner of generation.runners)
      runner.promise.then(
        () => current === generation && void recover("a job runner stopped"),
        (error: Error) => current === generation && void recover(`a job runner failed: ${error.message}`),
      );
    return generation;
  };

  /**
   * Stops a generation and lets its ids go once its last job has returned. graphile's own
   * bookkeeping on stop (returning its local queue, recording failures) retries for minutes while
   * the database is away, so the ids do not wait for it: a job still locked under them is released
   * by a sweep.
   */
  const drain = async (generation: Generation) => {
    // Taking no new job starts at once; the promise is the bookkeeping's.
    const stopped = Promise.all(generation.runners.map((runner) => runner.stop().catch(() => undefined)));
    const waitingSince = Date.now();
    let said = false;
    while (generation.inFlight > 0) {
      // Says so when a job outlives the stop by much: the worker takes no job until it returns.
      if (!said && Date.now() - waitingSince > 10_000) {
        said = true;
        log(`waiting for ${generation.inFlight} job(s) in flight to return before taking jobs again`);
      }
      await sleep(100);
    }
    await letGo([...generation.ids]);
    await stopped;
    await Promise.all(generation.pools.map((runnerDb) => runnerDb.end().catch(() => undefined)));
  };
  /** Drains a stopped generation without waiting for it (stop() waits for every one). */
  const drainBeside = (generation: Generation) => {
    const drained = drain(generation).finally(() => draining.delete(drained));
    draining.add(drained);
  };

  let recovering: Promise<void> | undefined;
  // A loss reported while a sequence runs: another sequence follows it, so none is missed.
  let lostMeanwhile: string | undefined;
  /**
   * Takes no job until the liveness locks are held again: the running generation is stopped (its
   * jobs finish, its ids are locked again meanwhile if the database comes back), and a new one is
   * started once every lock is held.
   */
  const recover = (reason?: string): Promise<void> | undefined => {
    if (stopping) return undefined;
    if (recovering) {
      lostMeanwhile ??= reason;
      return recovering;
    }
    // No reason: the first start, which goes the same way, so a connection lost meanwhile is
    // handled by the same single sequence and never starts a second set of runners.
    if (reason) log(`${reason}: taking no new jobs until the database is back`);
    recovering = (async () => {
      const old = current;
      current = undefined;
      if (old) drainBeside(old);
      await holdLiveness();
      const next = await untilItWorks("starting the job runners again", startRunners, RESTART_RETRY_MAX_MS);
      if (!next) return;
      if (stopping) return void (await drain(next));
      current = next;
      if (reason) log("taking jobs again");
    })().finally(() => {
      recovering = undefined;
      const again = lostMeanwhile;
      lostMeanwhile = undefined;
      if (again) void recover(again);
    });
    return recovering;
  };

  await recover();

  // Deliveries get slots of their own, so a receiver that holds a request for its 15 s does not
  // take a slot an order is waiting for, and a pool of their own with synchronous_commit off
  // (dispatch-webhooks.ts says why that is safe).
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
      caps: configured.webhookCaps,
      gate: orderPriority,
      delivery: { policy: webhookPolicyFromEnv(undefined, config) },
      log: (line) => log(`webhooks: ${line}`),
    });
  }

  const suspects = { workers: new Map<string, number>(), dispatchers: new Map<string, number>() };
  const sweep = async () => {
    try {
      const dead = await sweepDeadWorkers(pool, utils, suspects);
      if (dead.length) log(`released jobs of ${dead.length} dead worker(s)`);
      return dead;
    } catch (error) {
      log(`sweep failed: ${(error as Error).message}`);
      return [];
    }
  };
  // Packs whose stock fell below their alert are told to the admins at the sweep's pace: one look
  // at a time, and none while the job runners wait for the database.
  let alerting: Promise<void> | undefined;
  const alertStock = () => {
    if (alerting || recovering || stopping) return;
    alerting = alertLowStock(undefined, (line) => log(`stock alerts: ${line}`))
      .then(
        () => undefined,
        (error: Error) => log(`stock alerts failed: ${error.message}`),
      )
      .finally(() => (alerting = undefined));
  };
  await sweep();
  alertStock();
  const timer = setInterval(() => {
    void sweep();
    alertStock();
  }, options.sweepIntervalMs ?? configured.sweepIntervalMs);

  return {
    sweep,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await recovering;
      await Promise.all([current && drain(current), ...draining, dispatcher?.stop(), alerting]);
      await dispatchPool?.end();
      await liveness?.end().catch(() => undefined);
      await utils.release();
      await pool.end();
    },
  };
}
