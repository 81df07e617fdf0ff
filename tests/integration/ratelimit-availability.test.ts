// A rate-limit store that cannot answer must refuse quickly (RateLimitUnavailableError -> 503
// RATE_LIMIT_UNAVAILABLE), never let the request through and never hang; and service must come back
// by itself, with the same limiter, when the store does. For Redis over TCP and for Upstash REST.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRateLimiter,
  createTcpRedisBackend,
  createUpstashBackend,
  RateLimitUnavailableError,
  type RateLimiter,
} from "@/lib/ratelimit";
import { findClosedPort, startBlackHole, startTcpProxy } from "../helpers/tcp-proxy";
import { startUpstashRestServer, type UpstashRestServer } from "../helpers/upstash-rest-server";

const redisUrl = process.env.REDIS_URL;
if (!redisUrl)
  console.warn("SKIPPED: rate-limit recovery tests (TCP proxy in front of Redis), because REDIS_URL is not set");

const BOUND_MS = 1500; // RATE_LIMIT_TIMEOUT_MS is 300; the bound leaves room for a slow CI machine
const prefix = `rltest:${process.pid}:${Date.now()}:availability`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stores = [
  { name: "Redis over TCP", backend: (host: string, port: number) => createTcpRedisBackend(`redis://${host}:${port}`) },
  {
    name: "Upstash REST",
    backend: (host: string, port: number) =>
      createUpstashBackend({ url: `http://${host}:${port}`, token: "test-upstash-token", timeoutMs: 300 }),
  },
];

const created: RateLimiter[] = [];
function limiterOn(backend: ReturnType<(typeof stores)[number]["backend"]>): RateLimiter {
  const limiter = createRateLimiter({ backend, prefix, timeoutMs: 300 });
  created.push(limiter);
  return limiter;
}
afterAll(async () => {
  await Promise.all(created.map((limiter) => limiter.close()));
});

/** The call fails with RateLimitUnavailableError, within the bound. */
async function expectUnavailableFast(call: () => Promise<unknown>) {
  const started = Date.now();
  await expect(call()).rejects.toBeInstanceOf(RateLimitUnavailableError);
  expect(Date.now() - started).toBeLessThan(BOUND_MS);
}

/** Retries until the limiter admits again; fails after `withinMs`. */
async function expectAdmittedAgain(limiter: RateLimiter, withinMs: number) {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const decision = await limiter.checkKeyRateLimit("recovering-key");
      expect(decision.allowed).toBe(true);
      return;
    } catch (error) {
      last = error;
      await sleep(100);
    }
  }
  throw new Error(`still unavailable after ${withinMs} ms: ${String(last)}`);
}

for (const store of stores) {
  describe(`${store.name} that cannot answer`, () => {
    it("refuses within the bound when nothing listens on the port", async () => {
      const limiter = limiterOn(store.backend("127.0.0.1", await findClosedPort()));
      for (let attempt = 0; attempt < 3; attempt++) await expectUnavailableFast(() => limiter.checkKeyRateLimit("key"));
      await expectUnavailableFast(() => limiter.recordAuthFailure("203.0.113.1"));
    });

    it("refuses within the bound when the server accepts and never answers", async () => {
      const hole = await startBlackHole();
      try {
        const limiter = limiterOn(store.backend("127.0.0.1", hole.port));
        for (let attempt = 0; attempt < 3; attempt++)
          await expectUnavailableFast(() => limiter.checkKeyRateLimit("key"));
        await expectUnavailableFast(() => limiter.recordAuthFailure("203.0.113.1"));
      } finally {
        await hole.close();
      }
    });
  });
}

describe.skipIf(!redisUrl)("recovery without a restart", () => {
  let upstash: UpstashRestServer;
  beforeAll(async () => {
    upstash = await startUpstashRestServer(redisUrl!);
  });
  afterAll(async () => {
    await upstash?.close();
  });

  // The proxy stands in front of Redis itself (TCP) or of the Upstash-compatible server (REST).
  const targets = () => {
    const redis = new URL(redisUrl!);
    const rest = new URL(upstash.url);
    return {
      "Redis over TCP": { host: redis.hostname, port: Number(redis.port || 6379) },
      "Upstash REST": { host: rest.hostname, port: Number(rest.port) },
    } as Record<string, { host: string; port: number }>;
  };

  for (const store of stores) {
    it(`${store.name}: store goes away -> unavailable; comes back -> the same limiter admits again`, async () => {
      const proxy = await startTcpProxy(targets()[store.name]!);
      try {
        const limiter = limiterOn(store.backend("127.0.0.1", proxy.port));
        expect((await limiter.checkKeyRateLimit("recovering-key")).allowed).toBe(true);
        await proxy.stop();
        await expectUnavailableFast(() => limiter.checkKeyRateLimit("recovering-key"));
        await expectUnavailableFast(() => limiter.checkKeyRateLimit("recovering-key"));
        await proxy.start();
        await expectAdmittedAgain(limiter, 5000);
      } finally {
        await proxy.stop();
      }
    });

    it(`${store.name}: a connection that goes silent without closing is replaced`, async () => {
      const proxy = await startTcpProxy(targets()[store.name]!);
      try {
        const limiter = limiterOn(store.backend("127.0.0.1", proxy.port));
        expect((await limiter.checkKeyRateLimit("recovering-key")).allowed).toBe(true);
        proxy.freeze();
        await expectUnavailableFast(() => limiter.checkKeyRateLimit("recovering-key"));
        proxy.thaw(); // new connections work; the silenced one never answers again
        await expectAdmittedAgain(limiter, 5000);
      } finally {
        await proxy.stop();
      }
    });
  }
});
