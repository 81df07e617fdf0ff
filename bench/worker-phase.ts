// The fulfilment worker's figures. Orders placed while no worker runs form a backlog; a worker is
// started and the rate at which it takes them to completed is its throughput. Then orders are
// placed at a fixed rate below that throughput (a load both the API and the worker sustain), and
// placement-to-completion time is read from the orders themselves (created_at -> finished_at).
import type pg from "pg";
import { diffCpu, snapshotCpu } from "./cpu-usage";
import { percentile, runLoad, type RequestFactory } from "./load";
import { startProcess, type BenchProcess } from "./processes";

export interface WorkerFigures {
  backlogOrders: number;
  /** Orders taken to a terminal state per second while draining the backlog (by their finished_at). */
  drainPerSecond: number;
  drainWallSeconds: number;
  /** CPU per order while draining: the worker process, and PostgreSQL (all of its processes for the bench database). */
  drainWorkerUsPerOrder: number;
  drainPostgresUsPerOrder: number;
  /** 10 orders/s for 5 s: pick-up and fulfilment time without contention. */
  low: SteadyFigures;
  /** Half the capacity of the slower of worker and API, for BENCH_WORKER_STEADY_S. */
  steady: SteadyFigures;
  peakRssKiB: number;
}

/** Waits until no order with these trxids is still open (or the timeout); returns how many finished. */
async function waitUntilFinished(pool: pg.Pool, trxLike: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ finished: number; open: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('completed', 'cancelled'))::int AS finished,
              count(*) FILTER (WHERE status IN ('pending', 'processing'))::int AS open
         FROM orders WHERE trxid LIKE $1`,
      [trxLike],
    );
    if (rows[0]!.open === 0 || Date.now() > deadline) return rows[0]!.finished;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `scripts/worker.ts` as production runs it, ready once it says so. */
export function startBenchWorker(
  env: Record<string, string | undefined>,
  log: (line: string) => void,
  nodeArgs?: string[],
): Promise<BenchProcess> {
  return startProcess({
    name: "worker",
    entry: "scripts/worker.ts",
    env,
    readyLine: /fulfilling orders/,
    nodeArgs,
    log,
  });
}

export interface DrainFigures {
  drained: number;
  /** Orders taken to a terminal state per second, first to last finished_at. */
  drainPerSecond: number;
  /** From the worker being ready (`startedAt`) until no order of the backlog was open. */
  drainWallSeconds: number;
  startedAt: number;
  workerUsPerOrder: number;
  postgresUsPerOrder: number;
}

/** Waits for a just-started worker to finish every open order with these trxids; its rate and CPU. */
export async function measureDrain(
  pool: pg.Pool,
  trxLike: string,
  worker: BenchProcess,
  database: string,
): Promise<DrainFigures> {
  const startedAt = Date.now();
  const cpuBefore = snapshotCpu();
  const drained = await waitUntilFinished(pool, trxLike, 120_000);
  const drainWallSeconds = (Date.now() - startedAt) / 1000;
  const cpu = diffCpu(cpuBefore, snapshotCpu(), worker.pid, database);
  const span = (
    await pool.query<{ seconds: number }>(
      `SELECT extract(epoch FROM max(finished_at) - min(finished_at))::float8 AS seconds FROM orders WHERE trxid LIKE $1`,
      [trxLike],
    )
  ).rows[0]!.seconds;
  return {
    drained,
    drainPerSecond: span > 0 ? drained / span : NaN,
    drainWallSeconds,
    startedAt,
    workerUsPerOrder: (cpu.serverMs * 1000) / Math.max(1, drained),
    postgresUsPerOrder: (cpu.postgresMs * 1000) / Math.max(1, drained),
  };
}

export interface SteadyFigures {
  /** Orders placed per second (what autocannon achieved at the asked rate). */
  rate: number;
  seconds: number;
  orders: number;
  /** Placement (created_at, the placing transaction's start) to finished_at, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  notCompleted: number;
  /** The API's own answer times for those placements, ms. */
  apiP50Ms: number;
  apiP99Ms: number;
  apiFailures: number;
}

interface PhaseOptions {
  pool: pg.Pool;
  servicePort: number;
  factory: RequestFactory;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  log: (line: string) => void;
}

/** Places orders at a fixed rate while the worker runs, then reads their placement-to-completion times. */
export async function placeSteadily(
  options: PhaseOptions,
  rate: number,
  seconds: number,
  prefix: string,
): Promise<SteadyFigures> {
  const { pool } = options;
  options.log(`placing orders at ${rate}/s for ${seconds} s (trxids ${prefix}-*)`);
  const api = await runLoad({
    cursor: options.factory.cursor("limited", options.keysFor(rate, seconds)),
    port: options.servicePort,
    // Enough connections that the rate is reached even when an answer takes 100 ms.
    connections: Math.min(50, Math.max(5, Math.ceil(rate / 5))),
    durationSeconds: seconds,
    overallRate: rate,
    endpoint: "place",
    trxPrefix: prefix,
    factory: options.factory,
  });
  const apiSorted = [...api.latencies].sort((a, b) => a - b);
  // Answers still in flight when the load stopped may commit a moment later: count them too.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await waitUntilFinished(pool, `${prefix}-%`, 30_000);
  const row = (
    await pool.query<{ orders: number; p50: number; p99: number; max: number; not_completed: number }>(
      `SELECT count(*)::int AS orders,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
              max(ms) AS max,
              count(*) FILTER (WHERE status <> 'completed')::int AS not_completed
         FROM (SELECT (extract(epoch FROM finished_at - created_at) * 1000)::float8 AS ms, status
                 FROM orders WHERE trxid LIKE $1) t`,
      [`${prefix}-%`],
    )
  ).rows[0]!;
  return {
    rate: row.orders / seconds,
    seconds,
    orders: row.orders,
    p50Ms: row.p50,
    p99Ms: row.p99,
    maxMs: row.max,
    notCompleted: row.not_completed,
    apiP50Ms: percentile(apiSorted, 50),
    apiP99Ms: percentile(apiSorted, 99),
    apiFailures: api.non2xx + api.errors,
  };
}

export async function runWorkerPhase(options: {
  pool: pg.Pool;
  servicePort: number;
  factory: RequestFactory;
  keysFor: (ratePerSecond: number, seconds: number) => number;
  backlogPrefix: string;
  /** The bench database's name (for CPU accounting). */
  database: string;
  /** Orders per second the API placed alone (the backlog's placement), for the steady rate. */
  apiPlacementRate: number;
  steadySeconds: number;
  workerEnv: Record<string, string | undefined>;
  log: (line: string) => void;
}): Promise<WorkerFigures> {
  const { pool, log } = options;
  const backlog = (
    await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE trxid LIKE $1 AND status IN ('pending', 'processing')`,
      [`${options.backlogPrefix}-%`],
    )
  ).rows[0]!.n;

  let worker: BenchProcess | undefined;
  let figures: Omit<WorkerFigures, "peakRssKiB">;
  try {
    log(`worker: draining a backlog of ${backlog} orders`);
    worker = await startBenchWorker(options.workerEnv, log);
    const drain = await measureDrain(pool, `${options.backlogPrefix}-%`, worker, options.database);
    const { drained, drainPerSecond, drainWallSeconds } = drain;
    log(`worker: ${drained} orders finished, ${drainPerSecond.toFixed(0)}/s (wall ${drainWallSeconds.toFixed(1)} s)`);

    // Half of what the slower side manages alone (the worker draining, the API placing): placing
    // and fulfilling now share the machine, and the times should not be queueing behind a backlog.
    // First a trickle (10/s), which shows the pick-up and fulfilment time without contention.
    const capacity = Math.min(Number.isFinite(drainPerSecond) ? drainPerSecond : 100, options.apiPlacementRate);
    const low = await placeSteadily(options, 10, 5, "trickle");
    const steady = await placeSteadily(
      options,
      Math.max(10, Math.round(capacity / 2)),
      options.steadySeconds,
      "steady",
    );
    figures = {
      backlogOrders: backlog,
      drainPerSecond,
      drainWallSeconds,
      drainWorkerUsPerOrder: drain.workerUsPerOrder,
      drainPostgresUsPerOrder: drain.postgresUsPerOrder,
      low,
      steady,
    };
  } finally {
    // Stopped before the API-vs-floor runs: on two cores a worker draining their orders would
    // take CPU from whichever server happened to run next, and bias the comparison.
    await worker?.stop();
  }
  // Read after stop(), which folds in the kernel's high-water mark.
  return { ...figures, peakRssKiB: worker.peakRssKiB };
}
