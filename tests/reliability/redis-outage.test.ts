// The rate limiter's Redis killed (SIGKILL) under load, then started again on the same port: while
// it is gone every placement is answered at once with the JSON 503 RATE_LIMIT_UNAVAILABLE and writes
// nothing, the web process finds Redis again by itself (it is never restarted), and afterwards
// every order is terminal, one per trxid, and the books balance. The Redis is the test's own.
import type { ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { useCleanDatabase } from "../helpers/clean-database";
import {
  expectEveryOrderSettledOnce,
  firstSuccessAfter,
  placeOrdersUntilStopped,
  sleep,
  startWorkerProcess,
} from "../helpers/fault-load";
import { createAccount } from "../helpers/fixtures";
import { hasRedisServer, startOwnRedis } from "../helpers/redis-server";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";
import { suiteDatabaseUrl } from "../helpers/suite";

const redisServer = hasRedisServer();
if (!redisServer)
  console.warn("SKIPPED: tests/reliability/redis-outage.test.ts needs redis-server on the PATH; it is not there");

const children: ChildProcess[] = [];
useCleanDatabase();
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

// How long Redis stays away at the least: long enough for every client to be refused many times.
const OUTAGE_MS = 5_000;

describe.skipIf(!redisServer)("the rate limiter's Redis killed under load", () => {
  it("answers JSON 503 RATE_LIMIT_UNAVAILABLE at once while it is gone, writes nothing, and comes back by itself", async () => {
    const redis = await startOwnRedis();
    const db = new pg.Pool({ connectionString: suiteDatabaseUrl(), max: 2 });
    try {
      const account = await createAccount({ balanceCents: 1_000_000 });
      const server = await startServer({
        ...TEST_ENV,
        DATABASE_URL: suiteDatabaseUrl(),
        REDIS_URL: redis.url,
        SERVE_DASHBOARD: "0",
      });
      children.push(server.child);
      const worker = startWorkerProcess({ DATABASE_URL: suiteDatabaseUrl(), SANDBOX_LATENCY_MS: "100" });
      children.push(worker.child);
      await worker.ready;

      const load = placeOrdersUntilStopped({ baseUrl: server.baseUrl, key: account.key, prefix: "redis", paceMs: 50 });
      await expect.poll(() => load.placed.size, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(10);
      // The web process counts in this Redis (and no other).
      const probe = new Redis(redis.url);
      expect(await probe.dbsize()).toBeGreaterThan(0);
      probe.disconnect();

      await redis.kill();
      const downAt = Date.now();
      // Nothing is written for a refused request: once the placements admitted before the kill have
      // answered, no order, debit or order id is taken until Redis is back.
      const written = async () =>
        (
          await db.query(
            `SELECT (SELECT count(*)::int FROM orders) AS orders,
                    (SELECT count(*)::int FROM ledger_entries WHERE kind = 'debit') AS debits,
                    (SELECT last_value::int FROM orders_id_seq) AS last_order_id`,
          )
        ).rows[0];
      await expect.poll(() => load.settledSince(downAt), { timeout: 60_000, interval: 50 }).toBe(true);
      const before = await written();
      await expect
        .poll(() => Date.now() - downAt >= OUTAGE_MS && load.answers.filter((a) => a.sentAt >= downAt).length >= 20, {
          timeout: 60_000,
          interval: 100,
        })
        .toBe(true);
      expect(await written()).toEqual(before);

      const webPid = server.child.pid;
      // From the moment it is started again: the web process may reconnect before our own PING returns.
      const upAt = Date.now();
      await redis.start();
      await expect.poll(() => firstSuccessAfter(load, upAt), { timeout: 30_000, interval: 100 }).toBeDefined();
      const backMs = firstSuccessAfter(load, upAt)!;
      await sleep(1000);
      await load.stop();

      // Never restarted: the same web process found the new Redis.
      expect(server.child.exitCode).toBeNull();
      expect(server.child.signalCode).toBeNull();
      expect(server.child.pid).toBe(webPid);

      const whileDown = load.answers.filter((a) => a.sentAt >= downAt && a.answeredAt <= upAt);
      expect(whileDown.length).toBeGreaterThanOrEqual(20);
      expect(whileDown.filter((a) => a.status !== 503 || a.code !== "RATE_LIMIT_UNAVAILABLE" || !a.json)).toEqual([]);
      // Quick: well within the limiter's bound (RATE_LIMIT_TIMEOUT_MS, 5 s here) and a busy machine's delays.
      const slowest = Math.max(...whileDown.map((a) => a.answeredAt - a.sentAt));
      expect(slowest).toBeLessThan(10_000);
      // Before, during and after: 200 or the limiter's 503, never a 500, never a hang.
      expect(
        load.answers.filter((a) => a.status !== 200 && (a.status !== 503 || a.code !== "RATE_LIMIT_UNAVAILABLE")),
      ).toEqual([]);
      expect(load.hung).toEqual([]);
      expect(load.connectionErrors).toEqual([]);

      const outcome = await expectEveryOrderSettledOnce(db, {
        accountId: account.accountId,
        placed: load.placed,
        diagnostics: () => worker.output.slice(-40).join("\n"),
      });
      console.log(
        `[redis-outage] Redis killed for ${Math.round((upAt - downAt) / 100) / 10} s: ${whileDown.length} placements` +
          ` answered 503 RATE_LIMIT_UNAVAILABLE (slowest ${slowest} ms), nothing written; a placement answered 200` +
          ` ${backMs} ms after Redis was back, same web process; ${outcome}, books balance`,
      );
    } finally {
      await db.end();
      await redis.stop();
    }
  }, 180_000);
});
