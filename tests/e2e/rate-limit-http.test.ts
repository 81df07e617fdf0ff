// SPEC section 8 and the switches, over real HTTP against two app processes sharing one Redis (as
// several instances behind a load balancer do), with the spec's limits: 10 per rolling second and
// 80 per rolling minute per key. Redis sits behind a TCP proxy so a test can take it away.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { closePool } from "@/lib/db/pool";
import { setSwitch } from "@/lib/settings/set-switch";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { api } from "../helpers/api";
import { closeSql, resetDatabase, sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid } from "../helpers/orders";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy";
import { startServer } from "../setup/global-setup";
import { TEST_ENV } from "../setup/test-env";

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) console.warn("SKIPPED: tests/e2e/rate-limit-http.test.ts needs REDIS_URL (a real Redis); it is not set");

describe.skipIf(!redisUrl)("rate limits and switches across two app processes on one Redis", () => {
  let proxy: TcpProxy;
  const servers: { child: ChildProcess; baseUrl: string }[] = [];
  const [one, two] = [0, 1];
  const url = (i: number) => servers[i].baseUrl;

  beforeAll(async () => {
    await resetDatabase();
    await seedDemoCatalog();
    const target = new URL(redisUrl!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const env = {
      ...TEST_ENV,
      DATABASE_URL: inject("databaseUrl"),
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      RATE_LIMIT_PREFIX: `rl-http-${process.pid}-${Date.now()}`,
      // The spec's limits, not the roomy ones the shared test server uses.
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

  it("the 11th call within a second is refused with the spec's body and honest headers; other keys are unaffected", async () => {
    const account = await createAccount();
    const other = await createAccount();
    // Eleven calls at once, at the start of a fixed second, alternating the two instances: the
    // limit is shared, not per process, and a busy machine cannot stretch them past the window.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const answers = await Promise.all(Array.from({ length: 11 }, (_, i) => api("/balance", { key: account.key }, url(i % 2))));
    answers.sort((a, b) => a.status - b.status);
    for (const a of answers.slice(0, 10)) {
      expect(a.status).toBe(200);
      expect(a.headers.get("ratelimit-policy")).toBe('"burst";q=10;w=1, "minute";q=80;w=60');
      expect(a.headers.get("ratelimit")).toMatch(/^"burst";r=\d+;t=\d+, "minute";r=\d+;t=\d+$/);
      expect(a.headers.get("x-ratelimit-limit")).toBeTruthy();
      expect(a.headers.get("x-ratelimit-remaining")).toBeTruthy();
      expect(a.headers.get("x-ratelimit-reset")).toBeTruthy();
    }
    const refused = answers[10];
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ success: false, error: "TOO MANY REQUESTS", code: "RATE_LIMIT" });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect((await api("/balance", { key: other.key }, url(two))).status).toBe(200);
    // Honest: a client that waits Retry-After seconds is admitted.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await api("/balance", { key: account.key }, url(one))).status).toBe(200);
  });

  it("the 81st call within a minute is refused, counted across both instances", async () => {
    const account = await createAccount();
    // @upstash/ratelimit's sliding window weighs the previous fixed window (aligned to the epoch) as
    // if its calls were evenly spread. Keep all 80 calls inside one fixed minute, and pace them one
    // every 125 ms after each answer (never catching up in a burst), so the count is exact.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 15_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 50));
    for (let i = 0; i < 80; i++) {
      const res = await api("/my-ip", { key: account.key }, url(i % 2));
      expect(res.status, `call ${i + 1}`).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 125));
    }
    const refused = await api("/my-ip", { key: account.key }, url(two));
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe("RATE_LIMIT");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(1);
  }, 45_000);

  it("failed authentication is limited per client IP, even for a valid key from that IP; other IPs are unaffected", async () => {
    const account = await createAccount();
    const guesser = { "x-forwarded-for": "198.51.100.23" };
    let failures = 0;
    let status = 0;
    for (; failures < 25 && status !== 429; failures++) {
      status = (await api("/balance", { key: "svc_" + "Q".repeat(40), headers: guesser }, url(failures % 2))).status;
    }
    expect(status).toBe(429);
    // The 21st failure uses up the budget of 20; from then on the IP is refused before any lookup.
    expect(failures).toBeGreaterThanOrEqual(21);
    expect(failures).toBeLessThanOrEqual(22);
    const blocked = await api("/balance", { key: account.key, headers: guesser }, url(one));
    expect(blocked.status).toBe(429);
    expect(blocked.json.code).toBe("RATE_LIMIT");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await api("/balance", { key: account.key, headers: { "x-forwarded-for": "198.51.100.24" } }, url(one))).status).toBe(200);
  });

  it("Redis unreachable: a quick 503 RATE_LIMIT_UNAVAILABLE and no order written; back: normal service without a restart", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    await proxy.stop();
    try {
      const started = Date.now();
      const res = await api("/orders", { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid(), userId: "1" } }, url(one));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ success: false, error: "RATE_LIMIT_UNAVAILABLE", code: "RATE_LIMIT_UNAVAILABLE" });
      expect((await api("/balance", { key: account.key }, url(two))).json.code).toBe("RATE_LIMIT_UNAVAILABLE");
      expect(await sql(`SELECT 1 FROM orders WHERE account_id = $1`, [account.accountId])).toEqual([]);
    } finally {
      await proxy.start();
    }
    await expect.poll(async () => (await api("/balance", { key: account.key }, url(one))).status, { timeout: 10_000, interval: 250 }).toBe(200);
    const placed = await api("/orders", { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid(), userId: "1" } }, url(two));
    expect(placed.json.orderCreated).toBe(true);
  });

  it.each(["MAINTENANCE", "API_ORDER_DISABLED"] as const)("%s flipped on one instance is obeyed by the other within 2 s, and audited", async (name) => {
    const account = await createAccount({ balanceCents: 1000 });
    // Warm both instances' settings caches first, so the test measures propagation.
    expect((await api("/balance", { key: account.key }, url(two))).status).toBe(200);
    await setSwitch(name, true, "test:ops");
    try {
      const flipped = Date.now();
      await expect
        .poll(async () => (await api("/orders", { key: account.key, body: { pid: "SVCBR60", trxid: newTrxid(), userId: "1" } }, url(one))).json.code, {
          timeout: 2000,
          interval: 150,
        })
        .toBe(name);
      expect(Date.now() - flipped).toBeLessThan(2000);
      expect((await api("/products", { key: account.key }, url(two))).status).toBe(200);
      const [audit] = await sql(`SELECT actor, details FROM audit_log WHERE action = 'setting.set' AND target_id = $1 ORDER BY id DESC LIMIT 1`, [name]);
      expect(audit.actor).toBe("test:ops");
      expect(audit.details.to).toBe(true);
      expect(audit.details.from).not.toBe(true); // false, or null when it had never been set
    } finally {
      await setSwitch(name, false, "test:ops");
    }
  });
});
