// The parts of the worker that keep orders exactly-once through crashes, each on its own against the
// real database (the whole worker is tested killed and cut off in tests/reliability/ and tests/e2e/):
// the liveness locks another process sees, the sweep that releases a dead worker's jobs and no live
// one's, and a stopped generation of job runners that lets its ids go only after its last order.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { Logger, makeWorkerUtils, parseCronItems, run, type Runner, type WorkerUtils } from "graphile-worker";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "@/lib/config/env";
import { LIVENESS_NAMESPACE, LivenessLocks } from "@/lib/fulfilment/sql/hold-liveness-locks";
import { jobGenerations } from "@/lib/fulfilment/sql/run-job-generations";
import { sweepDeadWorkers } from "@/lib/fulfilment/sql/sweep-dead-workers";
import { yieldToOrders } from "@/lib/webhooks/yield-to-orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { suiteDatabaseUrl } from "../helpers/suite";

useCleanDatabase();

const connectionString = () => suiteDatabaseUrl();
const quiet = () => undefined;
const silent = new Logger(() => quiet);
/** A connection PostgreSQL drops at the end of a test is nothing to report. */
const quietErrors = (db: pg.Pool) => db.on("error", quiet).on("connect", (client) => client.on("error", quiet));
let probe: pg.Client;
let pool: pg.Pool;
let utils: WorkerUtils;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  probe = new pg.Client({ connectionString: connectionString() });
  await probe.connect();
  pool = new pg.Pool({ connectionString: connectionString(), max: 2 });
  quietErrors(pool);
  utils = await makeWorkerUtils({ pgPool: pool, logger: silent });
  await utils.migrate();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await utils?.release();
  await pool?.end();
  await probe?.end();
});

/** Whether each id's liveness lock is free now (nobody holds it alive), asked one after the other. */
async function locksAreFree(ids: string[]): Promise<boolean[]> {
  const free: boolean[] = [];
  for (const id of ids) free.push(await lockIsFree(id));
  return free;
}

/** Whether another session could take `id`'s liveness lock now: nobody holds it alive. */
async function lockIsFree(id: string): Promise<boolean> {
  const { rows } = await probe.query<{ free: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS free", [
    LIVENESS_NAMESPACE,
    id,
  ]);
  if (rows[0]!.free) await probe.query("SELECT pg_advisory_unlock($1, hashtext($2))", [LIVENESS_NAMESPACE, id]);
  return rows[0]!.free;
}

function livenessLocks(onLost: (reason: string) => void = quiet): LivenessLocks {
  const locks = new LivenessLocks({ connectionString: connectionString(), log: quiet, stopping: () => false, onLost });
  cleanups.push(() => locks.end());
  return locks;
}

describe("liveness locks", () => {
  it("hold an id for every other session to see until it is let go", async () => {
    const locks = livenessLocks();
    await locks.hold();
    await locks.holdId("worker-a");
    expect(await lockIsFree("worker-a")).toBe(false);
    await locks.letGo(["worker-a"]);
    expect(await lockIsFree("worker-a")).toBe(true);
  });

  it("lock an id held before the connection is taken, and let every id go when the process's connection ends", async () => {
    const locks = livenessLocks();
    void locks.holdId("worker-b");
    await locks.hold();
    expect(await lockIsFree("worker-b")).toBe(false);
    await locks.end();
    expect(await lockIsFree("worker-b")).toBe(true);
  });

  it("tell of a lost connection, and take the locks again on a new one", async () => {
    const lost: string[] = [];
    const locks = livenessLocks((reason) => lost.push(reason));
    await locks.hold();
    await locks.holdId("worker-c");
    // PostgreSQL ends the session holding the lock, as a restart would.
    await probe.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::bigint::oid
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND objid = (hashtext($2)::bigint & 4294967295)::oid`,
      [LIVENESS_NAMESPACE, "worker-c"],
    );
    await expect.poll(() => lost, { timeout: 10_000 }).toEqual([expect.stringMatching(/^liveness connection lost/)]);
    await locks.hold();
    expect(await lockIsFree("worker-c")).toBe(false);
  });
});

describe("the sweep of dead workers", () => {
  /** A job locked by a graphile runner whose task never returns (until the test ends): the runner's id. */
  async function lockedJob(): Promise<{ lockedBy: string; jobId: string }> {
    const task = `hang-${randomUUID()}`;
    let release = () => undefined as void;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const runnerPool = new pg.Pool({ connectionString: connectionString(), max: 3 });
    quietErrors(runnerPool);
    const runner: Runner = await run({
      pgPool: runnerPool,
      concurrency: 1,
      noHandleSignals: true,
      parsedCronItems: parseCronItems([]),
      pollInterval: 200,
      logger: silent,
      taskList: { [task]: () => hanging },
    });
    cleanups.push(async () => {
      release();
      await runner.stop();
      await runnerPool.end();
    });
    const job = await utils.addJob(task, {});
    const locked = () =>
      sqlRow<{ locked_by: string | null }>(`SELECT locked_by FROM graphile_worker.jobs WHERE id = $1`, [job.id]);
    await expect.poll(async () => (await locked()).locked_by, { timeout: 10_000 }).not.toBeNull();
    return { lockedBy: (await locked()).locked_by!, jobId: job.id };
  }

  const lockedByOf = async (jobId: string) =>
    (await sqlRow(`SELECT locked_by FROM graphile_worker.jobs WHERE id = $1`, [jobId])).locked_by;
  /** Past the sweep's grace for a freshly locked job (a worker may still be taking its liveness lock). */
  const pastGrace = (jobId: string) =>
    expect
      .poll(
        async () =>
          (
            await sqlRow(
              `SELECT locked_at < now() - interval '6 seconds' AS old FROM graphile_worker.jobs WHERE id = $1`,
              [jobId],
            )
          ).old,
        { timeout: 20_000, interval: 250 },
      )
      .toBe(true);

  it("releases the job of a worker nobody holds alive, and names it", async () => {
    const { lockedBy, jobId } = await lockedJob();
    const sweep = sweepDeadWorkers({ pool, utils, log: quiet, confirmMs: 0 });
    await pastGrace(jobId);
    expect(await sweep()).toEqual([lockedBy]);
    expect(await lockedByOf(jobId)).toBeNull();
  });

  it("leaves the job of a worker held alive", async () => {
    const { lockedBy, jobId } = await lockedJob();
    const locks = livenessLocks();
    await locks.hold();
    await locks.holdId(lockedBy);
    const sweep = sweepDeadWorkers({ pool, utils, log: quiet, confirmMs: 0 });
    await pastGrace(jobId);
    expect(await sweep()).toEqual([]);
    expect(await lockedByOf(jobId)).toBe(lockedBy);
  });

  it("calls a worker dead only once its lock has stayed free for the confirmation time", async () => {
    const { lockedBy, jobId } = await lockedJob();
    const sweep = sweepDeadWorkers({ pool, utils, log: quiet, confirmMs: 2_000 });
    await pastGrace(jobId);
    expect(await sweep()).toEqual([]);
    expect(await lockedByOf(jobId)).toBe(lockedBy);
    await expect.poll(() => sweep(), { timeout: 20_000, interval: 500 }).toEqual([lockedBy]);
    expect(await lockedByOf(jobId)).toBeNull();
  });
});

describe("a generation of job runners", () => {
  it("stopped with an order in hand, holds its ids until that order is settled, then lets them go", async () => {
    const config = loadEnv({ ...process.env, SANDBOX_LATENCY_MS: "4000" });
    const locks = livenessLocks();
    await locks.hold();
    const orderPriority = yieldToOrders({ burstOrdersPerSecond: 10, slots: 1, wake: quiet, maxCredit: 1, batch: 1 });
    const generations = jobGenerations({
      connectionString: connectionString(),
      config,
      concurrency: 1,
      orderPriority,
      liveness: locks,
      log: quiet,
    });
    const generation = await generations.start(quiet);
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("gen"), userId: "5120001" });
    expect(placed.status).toBe(200);
    const orderRow = () =>
      sqlRow<{ attempts: number; status: string }>(`SELECT attempts, status FROM orders WHERE public_id = $1`, [
        placed.json.orderId,
      ]);
    // The attempt is counted before the supplier (4 s here) is called: the order is in hand.
    await expect.poll(async () => (await orderRow()).attempts, { timeout: 15_000 }).toBe(1);
    const ids = [...generation.ids];
    expect(ids.length).toBeGreaterThan(0);

    const drained = generations.drain(generation);
    expect(await locksAreFree(ids)).toEqual(ids.map(() => false));
    await drained;
    expect((await orderRow()).status).toBe("completed");
    expect(await locksAreFree(ids)).toEqual(ids.map(() => true));
  });
});
