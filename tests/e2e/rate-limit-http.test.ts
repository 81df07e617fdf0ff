// The per-key limits and the switches (docs/api.md: Rate limits, Switches), over real HTTP against two app processes sharing one Redis (as
// several instances behind a load balancer do), with the documented limits: 10 per rolling second and
// 80 per rolling minute per key. Redis sits behind a TCP proxy so a test can take it away.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { setSwitch } from "@/lib/settings/set-switch";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { api } from "../helpers/api";
import { closeSql, resetDatabase, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid } from "../helpers/orders";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy";
import { startServer } from "../setup/global-setup";
import { Redis } from "ioredis";
import { keyLimitIdentifier } from "@/lib/ratelimit/key-limit-identifier";
import { TEST_ENV } from "../setup/test-env";
import { suiteDatabaseUrl } from "../helpers/suite";

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) console.warn("SKIPPED: tests/e2e/rate-limit-http.test.ts needs REDIS_URL (a real Redis); it is not set");

describe.skipIf(!redisUrl)("rate limits and switches across two app processes on one Redis", () => {
  let proxy: TcpProxy;
  const servers: { child: ChildProcess; baseUrl: string }[] = [];
  const [one, two] = [0, 1];
  const url = (i: number) => servers[i]!.baseUrl;
  const prefix = `rl-http-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    const target = new URL(redisUrl!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const env = {
      ...TEST_ENV,
      DATABASE_URL: suiteDatabaseUrl(),
      // The same database number as REDIS_URL, so the test reads what the servers wrote.
      REDIS_URL: `redis://127.0.0.1:${proxy.port}${target.pathname}`,
      RATE_LIMIT_PREFIX: prefix,
      // The documented limits, not the roomy ones the shared test server uses.
      RATE_LIMIT_KEY_BURST: "",
      RATE_LIMIT_KEY_PER_MINUTE: "",
      RATE_LIMIT_AUTH_FAILURES: "",
      // So the failed-auth test can come from another client address than the other tests.
      TRUSTED_PROXIES: "127.0.0.1",
      SERVE_DASHBOARD: "0",
    };
    servers.push(await startServer(env), await startServer(env));
  });
  afterAll(async () => {
    for (const s of servers) s.child.kill("SIGKILL");
    await proxy?.stop();
    await closePool();
    await closeSql();
  });

  it("the 11th call within a second is refused with the documented body and honest headers; other keys are unaffected", async (ctx) => {
    const other = await createAccount();
    // Eleven calls at once, alternating the two instances: the limit is shared, not per process.
    // A busy machine may spread them over more than a second, and then the 11th is rightly admitted
    // (the windows are rolling): such a round proves nothing, so it is tried again with a fresh key,
    // and the test skips with its reason when no round fits in a second.
    for (let round = 1; round <= 3; round++) {
      const account = await createAccount();
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 11 }, (_, i) => api("/balance", { key: account.key }, url(i % 2))),
      );
      const fitted = Date.now() - started < 1000;
      answers.sort((a, b) => a.status - b.status);
      for (const a of answers.slice(0, 10)) {
        expect(a.status).toBe(200);
        expect(a.headers.get("ratelimit-policy")).toBe('"burst";q=10;w=1, "minute";q=80;w=60');
        expect(a.headers.get("ratelimit")).toMatch(/^"burst";r=\d+;t=\d+, "minute";r=\d+;t=\d+$/);
        expect(a.headers.get("x-ratelimit-limit")).toBeTruthy();
        expect(a.headers.get("x-ratelimit-remaining")).toBeTruthy();
        expect(a.headers.get("x-ratelimit-reset")).toBeTruthy();
      }
      if (!fitted) continue;
      const refused = answers[10]!;
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ success: false, error: "TOO MANY REQUESTS", code: "RATE_LIMIT" });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
      expect((await api("/balance", { key: other.key }, url(two))).status).toBe(200);
      // Honest: a client that waits Retry-After seconds is admitted.
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      expect((await api("/balance", { key: account.key }, url(one))).status).toBe(200);
      return;
    }
    ctx.skip("eleven calls at once took over a second in each of 3 rounds here; the refusal was not exercised");
  });

  it("never refuses a client within the limits: 7 calls, then 7 more just over a second later, round after round", async () => {
    // The case @upstash/ratelimit's sliding window got wrong (it refused such a client): every batch
    // starts more than a second after the previous one answered, so no rolling second holds more
    // than 7 of these calls on the servers' clock, however busy the machine is.
    const account = await createAccount();
    for (let batch = 0; batch < 8; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 7 }, (_, i) => api("/balance", { key: account.key }, url((batch + i) % 2))),
      );
      expect(
        answers.map((answer) => answer.status),
        `batch ${batch + 1}`,
      ).toEqual(Array(7).fill(200));
      await new Promise((resolve) => setTimeout(resolve, 1001));
    }
  }, 45_000);

  it("the 81st call within a rolling minute is refused, counted across both instances, with an exact Retry-After", async () => {
    const account = await createAccount();
    // Paced: each call starts at least 125 ms after the previous one, so no second holds more than 8.
    const started: number[] = [];
    const answered: number[] = [];
    for (let i = 0; i < 80; i++) {
      started.push(Date.now());
      const res = await api("/my-ip", { key: account.key }, url(i % 2));
      answered.push(Date.now());
      expect(res.status, `call ${i + 1}`).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 125));
    }
    const before = Date.now();
    const refused = await api("/my-ip", { key: account.key }, url(two));
    const after = Date.now();
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe("RATE_LIMIT");
    // 81 calls in the minute (the refused one counts): the next is admitted when the 2nd call
    // leaves the window, 60 s after it was counted (somewhere between its request and its answer).
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor((started[1]! + 60_000 - after) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((answered[1]! + 60_000 - before) / 1000));
    expect(refused.headers.get("x-ratelimit-limit")).toBe("80");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  }, 60_000);

  it("a POST /orders refused by the limits reserves no order id (the key's lookup reads the placement's only for admitted requests)", async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    const lastId = async () =>
      Number(
        (
          await sqlRow<{ n: string }>(
            `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS n FROM orders_id_seq`,
          )
        ).n,
      );
    const before = await lastId();
    // 100 orders from one key, ten at a time over both instances: the minute's 80 admit at most 80,
    // however slowly the machine sends them (they take well under a minute).
    const answers: number[] = [];
    for (let round = 0; round < 10; round++) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api(
            "/orders",
            { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid("ids"), userId: "5123456" } },
            url(i % 2),
          ),
        ),
      );
      answers.push(...batch.map((answer) => answer.status));
    }
    const admitted = answers.filter((status) => status === 200).length;
    expect(answers.filter((status) => status === 429).length).toBeGreaterThanOrEqual(20);
    expect(admitted + answers.filter((status) => status === 429).length).toBe(100);
    // One id per new order, none for a refusal.
    expect(await lastId()).toBe(before + admitted);
    expect(await sql(`SELECT count(*)::int AS n FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([
      { n: admitted },
    ]);
  });

  it("failed authentication: bad keys from a network are refused once its budget is spent, a valid key from it still passes, IPv6 counted per /64", async () => {
    const account = await createAccount();
    // The budget is a fixed window of a minute: start early enough in one that 25 failures fit.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 15_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 50));
    const badKey = "svc_" + "Q".repeat(40);
    for (const [guesser, sameNetwork, otherNetwork] of [
      ["198.51.100.23", "198.51.100.23", "198.51.100.24"],
      ["2001:db8:77:1::1", "2001:db8:77:1:ffff:ffff:ffff:fffe", "2001:db8:77:2::1"],
    ] as const) {
      const from = (ip: string) => ({ "x-forwarded-for": ip });
      let failures = 0;
      let status = 0;
      for (; failures < 25 && status !== 429; failures++) {
        // IPv6: alternate two addresses of the /64; they share one budget.
        const ip = failures % 2 ? sameNetwork : guesser;
        status = (await api("/balance", { key: badKey, headers: from(ip) }, url(failures % 2))).status;
        if (status !== 429) expect(status, `failure ${failures + 1}`).toBe(401);
      }
      // The 20th failure spends the budget of 20; from the 21st (22nd on the instance that has not
      // yet seen the block) bad keys are refused without a store round trip.
      expect(status).toBe(429);
      expect(failures).toBeGreaterThanOrEqual(21);
      expect(failures).toBeLessThanOrEqual(22);
      for (const i of [one, two]) {
        const refused = await api("/balance", { key: badKey, headers: from(sameNetwork) }, url(i));
        expect(refused.status).toBe(429);
        expect(refused.json.code).toBe("RATE_LIMIT");
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        // A valid key from the same network passes: the lookup comes first and it is not a guess.
        const valid = await api("/balance", { key: account.key, headers: from(guesser) }, url(i));
        expect(valid.status).toBe(200);
        expect(valid.headers.get("ratelimit-policy")).toBe('"burst";q=10;w=1, "minute";q=80;w=60');
      }
      expect((await api("/balance", { key: badKey, headers: from(otherNetwork) }, url(one))).status).toBe(401);
    }
    // The bad key's calls were counted beside its lookup and taken back when it failed: guessed keys
    // leave nothing in the store.
    const redis = new Redis(redisUrl!);
    try {
      await expect
        .poll(() => redis.exists(`${prefix}:key:${keyLimitIdentifier(badKey)}`), { timeout: 5000, interval: 100 })
        .toBe(0);
      expect(await redis.exists(`${prefix}:key:${keyLimitIdentifier(account.key)}`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  }, 60_000);

  it("Redis unreachable: a quick 503 RATE_LIMIT_UNAVAILABLE and no order written; back: normal service without a restart", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    await proxy.stop();
    try {
      const started = Date.now();
      const res = await api(
        "/orders",
        { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid(), userId: "1" } },
        url(one),
      );
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ success: false, error: "RATE_LIMIT_UNAVAILABLE", code: "RATE_LIMIT_UNAVAILABLE" });
      expect((await api("/balance", { key: account.key }, url(two))).json.code).toBe("RATE_LIMIT_UNAVAILABLE");
      expect(await sql(`SELECT 1 FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);
    } finally {
      await proxy.start();
    }
    await expect
      .poll(async () => (await api("/balance", { key: account.key }, url(one))).status, {
        timeout: 10_000,
        interval: 250,
      })
      .toBe(200);
    const placed = await api(
      "/orders",
      { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid(), userId: "1" } },
      url(two),
    );
    expect(placed.json.orderCreated).toBe(true);
  });

  it.each(["MAINTENANCE", "API_ORDER_DISABLED"] as const)(
    "%s flipped on one instance is obeyed by the other within 2 s, and audited",
    async (name) => {
      const account = await createAccount({ balanceCents: 1000 });
      // Warm both instances' settings caches first, so the test measures propagation.
      expect((await api("/balance", { key: account.key }, url(two))).status).toBe(200);
      await setSwitch(name, true, "test:ops");
      try {
        const flipped = Date.now();
        await expect
          .poll(
            async () =>
              (
                await api(
                  "/orders",
                  { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid(), userId: "1" } },
                  url(one),
                )
              ).json.code,
            {
              timeout: 2000,
              interval: 150,
            },
          )
          .toBe(name);
        expect(Date.now() - flipped).toBeLessThan(2000);
        expect((await api("/products", { key: account.key }, url(two))).status).toBe(200);
        const audit = await sqlRow(
          `SELECT actor, details FROM audit_log WHERE action = 'setting.set' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
          [name],
        );
        expect(audit.actor).toBe("test:ops");
        expect(audit.details.to).toBe(true);
        expect(audit.details.from).not.toBe(true); // false, or null when it had never been set
      } finally {
        await setSwitch(name, false, "test:ops");
      }
    },
  );
});
