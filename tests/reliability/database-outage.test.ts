// PostgreSQL crashed (immediate shutdown, no checkpoint) under load while the worker process has
// jobs running, then started again on the same port and data directory: the worker process rides
// the outage out and takes its jobs back, the API answers only 200 or a JSON 503 meanwhile, and
// afterwards every order is terminal, one per trxid, and the books balance. The cluster is the
// test's own, so crashing it hurts nothing else.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { applyMigrations } from "@/lib/db/migrate";
import type { EmbeddedPostgresProcess } from "@/lib/db/embedded-process";
import { startEmbeddedPostgresProcess } from "../helpers/embedded-postgres-process";
import { findFreePort, isAlive } from "../helpers/processes";
import {
  expectEveryOrderSettledOnce,
  firstSuccessAfter,
  placeOrdersUntilStopped,
  sleep,
  startWorkerProcess,
} from "../helpers/fault-load";
import { seedSmallWorld } from "../helpers/small-world";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

/** A crash, not a shutdown: SIGQUIT is PostgreSQL's immediate shutdown (crash recovery on restart). */
async function crash(database: EmbeddedPostgresProcess, dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, "pg", "postmaster.pid");
  const postmaster = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
  process.kill(postmaster, "SIGQUIT");
  await expect.poll(() => isAlive(postmaster), { timeout: 30_000, interval: 100 }).toBe(false);
  // Its host process waits for a postgres that is gone; it has nothing left to stop.
  process.kill(database.pid, "SIGKILL");
}

async function outageUnderLoad(outageMs: number): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-pg-outage-"));
  fs.chmodSync(dataDir, 0o755);
  const port = await findFreePort();
  let database = await startEmbeddedPostgresProcess({ dataDir, port, database: "outage" });
  const check = () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // pool.end() resolves before its connections have closed: stopping the database right after can
    // still end one with 57P01, which an idle connection reports as the pool's 'error' event.
    pool.on("error", () => undefined);
    return pool;
  };
  try {
    await applyMigrations(database.url);
    const { key, accountId } = await seedSmallWorld(database.url, { telegramId: 777002, balanceCents: 1_000_000 });
    const server = await startServer({
      ...TEST_ENV,
      DATABASE_URL: database.url,
      SERVE_DASHBOARD: "0",
      PG_CONNECT_TIMEOUT_MS: "1000",
    });
    children.push(server.child);
    // Every supplier call takes a while, so jobs are surely running when the database goes.
    const worker = startWorkerProcess({
      DATABASE_URL: database.url,
      SANDBOX_LATENCY_MS: "700",
      PG_CONNECT_TIMEOUT_MS: "1000",
    });
    children.push(worker.child);
    let workerExit: string | undefined;
    worker.child.once("exit", (code, signal) => (workerExit = signal ?? `exit code ${code}`));
    await worker.ready;

    const load = placeOrdersUntilStopped({ baseUrl: server.baseUrl, key, prefix: "outage", paceMs: 100 });
    // Crash only once the worker is in the middle of jobs.
    const pool = check();
    await expect
      .poll(
        async () =>
          (await pool.query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE locked_by IS NOT NULL`)).rows[0]
            .n,
        { timeout: 30_000, interval: 100 },
      )
      .toBeGreaterThan(0);
    await pool.end();
    await crash(database, dataDir);
    const downAt = Date.now();
    await sleep(outageMs);
    database = await startEmbeddedPostgresProcess({ dataDir, port, database: "outage" });
    const upAt = Date.now();
    await expect.poll(() => firstSuccessAfter(load, upAt), { timeout: 30_000, interval: 200 }).toBeDefined();
    await sleep(1000);
    await load.stop();
    const apiBackMs = firstSuccessAfter(load, upAt)!;

    const db = check();
    try {
      // Every order terminal: the worker took its jobs back (or the sweep released them to it).
      const outcome = await expectEveryOrderSettledOnce(db, {
        accountId,
        placed: load.placed,
        diagnostics: () => `worker: ${workerExit ?? "alive"}\n${worker.output.slice(-40).join("\n")}`,
      });
      const workerBackMs = Date.now() - upAt;
      // The worker holds its liveness locks again (so no sweep takes it for a dead one).
      await expect
        .poll(
          async () =>
            (
              await db.query(
                `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 72707002 AND granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
              )
            ).rows[0].n,
          { timeout: 30_000, interval: 250 },
        )
        .toBeGreaterThan(0);
      expect(workerExit, worker.output.slice(-30).join("\n")).toBeUndefined();

      // Every answer meanwhile 200 or the documented JSON 503; nothing hung, no connection refused.
      const refusals = load.answers.filter((a) => a.status !== 200);
      expect(refusals.filter((a) => a.status !== 503 || a.code !== "SERVICE_UNAVAILABLE" || !a.json)).toEqual([]);
      expect(refusals.length).toBeGreaterThan(0);
      expect(load.hung).toEqual([]);
      expect(load.connectionErrors).toEqual([]);
      console.log(
        `[database-outage] ${Math.round((upAt - downAt) / 1000)} s down: ${outcome}, ${refusals.length} JSON 503s` +
          ` (slowest ${Math.max(...refusals.map((a) => a.answeredAt - a.sentAt))} ms); a placement answered 200` +
          ` ${apiBackMs} ms and every order terminal ${workerBackMs} ms after the database; worker process never exited`,
      );
    } finally {
      await db.end();
    }
  } finally {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await database.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("PostgreSQL crashed with the worker's jobs running", () => {
  it("5 s down: the worker process rides it out; every order terminal, one per trxid, books balanced", async () => {
    await outageUnderLoad(5_000);
  }, 180_000);

  // Outlasts every backoff cap (liveness 2 s, runner restart 5 s) and graphile's LISTEN backoff many
  // times over: the worker keeps retrying however long the database stays away.
  it("60 s down: the same, however many reconnects it takes", async () => {
    await outageUnderLoad(60_000);
  }, 300_000);
});
