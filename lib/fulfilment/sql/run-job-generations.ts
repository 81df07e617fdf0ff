// graphile-worker runs the jobs in two runners: the orders', and one for the bot messages and the
// webhook tasks. One start of both is a generation. A runner stops by itself when it cannot record a
// job's end (the database went away); the whole generation is then replaced
// (../recover-from-outage.ts). A stopped generation keeps its ids alive until its last order job has
// returned and only then lets them go, so the sweep releases whatever it left locked.
import { EventEmitter } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { Logger, type LogLevel, parseCronItems, run, type Runner, type WorkerEvents } from "graphile-worker";
import type { Env } from "../../config/env";
import { fulfilOrder } from "./fulfil-order";
import { FULFIL_ORDER_TASK } from "./enqueue-fulfilment";
import { webhookTasks } from "../../webhooks/webhook-tasks";
import { telegramTasks } from "../../telegram/telegram-tasks";
import type { OrderPriority } from "../../webhooks/yield-to-orders";
import type { LivenessLocks } from "./hold-liveness-locks";

/** One start of graphile's two runners, with the ids they lock jobs under and their jobs in hand. */
export interface Generation {
  runners: Runner[];
  ids: Set<string>;
  inFlight: number;
  /** The runners' connections, ended once they have stopped. */
  pools: pg.Pool[];
}

export interface JobGenerations {
  /** Starts a generation; `onStopped` is told when one of its runners stops by itself. */
  start(onStopped: (generation: Generation, reason: string) => void): Promise<Generation>;
  /**
   * Stops a generation and lets its ids go once its last job has returned. graphile's own
   * bookkeeping on stop (returning its local queue, recording failures) retries for minutes while
   * the database is away, so the ids do not wait for it: a job still locked under them is released
   * by a sweep.
   */
  drain(generation: Generation): Promise<void>;
}

interface GenerationSetup {
  connectionString: string;
  config: Env;
  /** Orders at once. */
  concurrency: number;
  /** Told of every order job that finishes, so webhook deliveries yield to a burst of orders. */
  orderPriority: OrderPriority;
  liveness: Pick<LivenessLocks, "holdId" | "letGo">;
  log: (line: string) => void;
}

export function jobGenerations(setup: GenerationSetup): JobGenerations {
  const shared = sharedRunnerOptions(setup.log);
  return {
    async start(onStopped) {
      const generation: Generation = { runners: [], ids: new Set(), inFlight: 0, pools: [] };
      try {
        await startRunners(setup, shared, generation);
      } catch (error) {
        await drainGeneration(setup, generation);
        throw error;
      }
      for (const runner of generation.runners)
        runner.promise.then(
          () => onStopped(generation, "a job runner stopped"),
          (error: Error) => onStopped(generation, `a job runner failed: ${error.message}`),
        );
      return generation;
    },
    drain: (generation) => drainGeneration(setup, generation),
  };
}

/** What both runners share: no signal handling (the process stops them), no cron, quiet logs. */
function sharedRunnerOptions(log: (line: string) => void) {
  return {
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
}

async function startRunners(
  setup: GenerationSetup,
  shared: ReturnType<typeof sharedRunnerOptions>,
  generation: Generation,
): Promise<void> {
  const { concurrency } = setup;
  const events = holdIdsOf(setup, generation);
  generation.runners.push(
    await run({
      ...shared,
      // The queue's own bookkeeping (locking, completing, rescheduling a job) commits without
      // waiting for the WAL flush. A job's order changes commit durably, after its lock, and a
      // flush takes every earlier commit with it: a database crash can lose only a lock nothing
      // was done under yet, or a completion, whose job runs again and finds its order settled.
      pgPool: runnerPool(setup, generation, "-c synchronous_commit=off"),
      events,
      concurrency,
      // graphile-worker's batching: jobs are locked many per query, and the jobs finished within
      // 10 ms are completed in one. Failures are batched too: unbatched, a failure that cannot
      // be recorded (database down) is a promise nobody awaits, and its rejection would end the
      // process.
      preset: {
        worker: { localQueue: { size: concurrency * 2 }, completeJobBatchDelay: 10, failJobBatchDelay: 0 },
      },
      taskList: { [FULFIL_ORDER_TASK]: fulfilTask(setup, generation) },
    }),
  );
  // graphile's runner for the bot messages: a holder's endpoint was disabled, the owners' alerts.
  generation.runners.push(
    await run({
      ...shared,
      pgPool: runnerPool(setup, generation),
      events,
      concurrency: 1,
      taskList: { ...webhookTasks, ...telegramTasks },
    }),
  );
}

/** The ids the generation's runners lock jobs under are held alive as they are created. */
function holdIdsOf(setup: GenerationSetup, generation: Generation): WorkerEvents {
  // Each start gets its own emitter, so the ids it reports belong to this generation.
  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  const hold = (id: string) => {
    generation.ids.add(id);
    void setup.liveness.holdId(id);
  };
  events.on("worker:create", ({ worker }) => hold(worker.workerId));
  // With a local queue, jobs are locked under the pool's id rather than a worker's.
  events.on("pool:create", ({ workerPool }) => hold(workerPool.id));
  return events;
}

/** The order task, counted while in hand: a generation is drained once none is. */
function fulfilTask(setup: GenerationSetup, generation: Generation) {
  return async (payload: unknown) => {
    generation.inFlight++;
    setup.orderPriority.orderStarted();
    try {
      const { orderId } = payload as { orderId: number };
      await fulfilOrder(orderId, setup.config.fulfilment, setup.config);
    } finally {
      generation.inFlight--;
      setup.orderPriority.orderFinished();
    }
  };
}

/**
 * A runner's pool, with its sessions' `settings` (libpq options). Its connection attempts time out
 * (PG_CONNECT_TIMEOUT_MS) like every pool of the service: an attempt that hangs would otherwise
 * hold a start or a stop for good.
 */
function runnerPool(setup: GenerationSetup, generation: Generation, settings?: string): pg.Pool {
  const { log } = setup;
  const runnerDb = new pg.Pool({
    connectionString: setup.connectionString,
    max: 10,
    connectionTimeoutMillis: setup.config.pgConnectTimeoutMs,
    options: settings,
  });
  // Idle and checked-out clients both, as for the worker's own pool.
  runnerDb.on("error", (error) => log(`runner pool error: ${error.message}`));
  runnerDb.on("connect", (client) => client.on("error", (error) => log(`runner pool client error: ${error.message}`)));
  generation.pools.push(runnerDb);
  return runnerDb;
}

async function drainGeneration(setup: GenerationSetup, generation: Generation): Promise<void> {
  // Taking no new job starts at once; the promise is the bookkeeping's.
  const stopped = Promise.all(generation.runners.map((runner) => runner.stop().catch(() => undefined)));
  const waitingSince = Date.now();
  let said = false;
  while (generation.inFlight > 0) {
    // Says so when a job outlives the stop by much: the worker takes no job until it returns.
    if (!said && Date.now() - waitingSince > 10_000) {
      said = true;
      setup.log(`waiting for ${generation.inFlight} job(s) in flight to return before taking jobs again`);
    }
    await sleep(100);
  }
  await setup.liveness.letGo([...generation.ids]);
  await stopped;
  await Promise.all(generation.pools.map((runnerDb) => runnerDb.end().catch(() => undefined)));
}
