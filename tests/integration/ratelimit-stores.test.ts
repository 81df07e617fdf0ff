// What each shared store keeps and survives: the TCP adapter runs @upstash/ratelimit's scripts on stock
// Redis (flag line stripped, NOSCRIPT after a script-cache loss handled); a key's record is bounded and
// expires; the Upstash backend refuses, rather than admits, when the REST API rejects it. That every
// store counts exactly and atomically is tests/integration/ratelimit-exact-windows.test.ts.
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRateLimiter,
  createTcpRedisBackend,
  createUpstashBackend,
  RateLimitUnavailableError,
  type RateLimiter,
} from "@/lib/ratelimit";
import { createIoredisClient, IoredisScriptAdapter } from "@/lib/ratelimit/ioredis-adapter";
import { startUpstashRestServer, type UpstashRestServer } from "../helpers/upstash-rest-server";

const redisUrl = process.env.REDIS_URL;
if (!redisUrl)
  console.warn("SKIPPED: rate-limit store tests (TCP Redis adapter, Upstash REST), because REDIS_URL is not set");

const prefix = `rltest:${process.pid}:${Date.now()}:stores`;

describe.skipIf(!redisUrl)("rate-limit stores on the wire", () => {
  let redis: Redis;
  let upstash: UpstashRestServer;
  const created: RateLimiter[] = [];
  beforeAll(async () => {
    redis = new Redis(redisUrl!);
    upstash = await startUpstashRestServer(redisUrl!);
  });
  afterAll(async () => {
    await Promise.all(created.map((limiter) => limiter.close()));
    await upstash?.close();
    redis?.disconnect();
  });

  it("TCP adapter: runs a script carrying Upstash's flag line, which stock Redis refuses", async () => {
    const script = `#!lua flags=allow-key-locking\nreturn tonumber(ARGV[1]) + ${Date.now()}`;
    await expect(redis.eval(script, 0, 1)).rejects.toThrow(/Unexpected flag/);

    const client = createIoredisClient(redisUrl!);
    const adapter = new IoredisScriptAdapter(client);
    try {
      const sha = (text: string) => createHash("sha1").update(text).digest("hex");
      // As @upstash/ratelimit calls it: evalsha with the SHA of its own text first, eval on NOSCRIPT.
      await expect(adapter.evalsha(sha(script), [], [1])).rejects.toThrow(/NOSCRIPT/);
      const expected = 1 + Number(script.split("+ ")[1]);
      expect(await adapter.eval(script, [], [1])).toBe(expected);
      expect(await adapter.evalsha(sha(script), [], [1])).toBe(expected);
      expect(await redis.script("EXISTS", sha(script.split("\n")[1]!), sha(script))).toEqual([1, 0]);
    } finally {
      client.disconnect();
    }
  });

  it("TCP: one sorted set per key under the prefix, bounded to the largest quota and expiring after the longest window", async () => {
    let now = 1_900_000_000_000;
    const limiter = createRateLimiter({
      backend: createTcpRedisBackend(redisUrl!),
      prefix: `${prefix}:tcp`,
      clock: () => now,
    });
    created.push(limiter);
    expect((await limiter.checkKeyRateLimit("key-1")).allowed).toBe(true);
    expect(await redis.keys(`${prefix}:tcp:*`)).toEqual([`${prefix}:tcp:key:key-1`]);
    expect(await redis.type(`${prefix}:tcp:key:key-1`)).toBe("zset");
    for (let call = 0; call < 500; call++) {
      await limiter.checkKeyRateLimit("key-1");
      now += 1;
    }
    // A client hammering the API costs the store 80 entries, not one per call.
    expect(await redis.zcard(`${prefix}:tcp:key:key-1`)).toBe(80);
    const ttl = await redis.pttl(`${prefix}:tcp:key:key-1`);
    expect(ttl).toBeGreaterThan(0); // the longest window and a second, then Redis forgets the key
    expect(ttl).toBeLessThanOrEqual(61_000);
  });

  it("TCP: keeps working after Redis loses its script cache (restart, failover): NOSCRIPT -> EVAL", async () => {
    const limiter = createRateLimiter({ backend: createTcpRedisBackend(redisUrl!), prefix: `${prefix}:flush` });
    created.push(limiter);
    expect((await limiter.checkKeyRateLimit("key-f")).allowed).toBe(true);
    await redis.script("FLUSH");
    const decision = await limiter.checkKeyRateLimit("key-f");
    expect(decision.allowed).toBe(true);
    expect(decision.headers.RateLimit).toContain(`"burst";r=8;`);
  });

  it("Upstash: a rejected token makes checks unavailable, never admitted", async () => {
    const limiter = createRateLimiter({
      backend: createUpstashBackend({ url: upstash.url, token: "wrong-token", timeoutMs: 300 }),
      prefix: `${prefix}:badtoken`,
    });
    created.push(limiter);
    await expect(limiter.checkKeyRateLimit("key-x")).rejects.toBeInstanceOf(RateLimitUnavailableError);
  });
});
