// What one per-key rate-limit check costs, call by call, against a real Redis over TCP:
//   npx tsx bench/limiter-cost.ts            (REDIS_URL, default redis://127.0.0.1:6379)
//   DATABASE_URL=... npx tsx bench/limiter-cost.ts   adds the key lookup, alone / then the check / beside it
// Sequential calls on one connection (latency, not throughput), after a warm-up; p50 and p99 in ms.
// Rows: a bare PING (the floor of any round trip); the previous limiter (two @upstash/ratelimit
// sliding windows, pipelined); the exact rolling log (one script) on a fresh key and on a key whose
// log is full (80 entries, the most a key can hold); the in-process store.
import { Ratelimit } from "@upstash/ratelimit";
import pg from "pg";
import { createMemoryBackend, createRateLimiter, createTcpRedisBackend } from "../lib/ratelimit";
import { createIoredisClient, IoredisScriptAdapter } from "../lib/ratelimit/ioredis-adapter";

const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const ITERATIONS = Number(process.env.LIMITER_BENCH_ITERATIONS || 5000);
const WARM_UP = 500;
const prefix = `bench-limiter-${process.pid}-${Date.now()}`;

async function time(label: string, call: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const start = process.hrtime.bigint();
    await call(WARM_UP + i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3);
  console.log(`| ${label} | ${at(0.5)} | ${at(0.99)} |`);
}

const keys = 2000; // rotating over many keys keeps each one far below its limits
const key = (i: number) => `key-${i % keys}`;

console.log(
  `${ITERATIONS} sequential calls each (after ${WARM_UP} warm-up), Redis ${redisUrl.replace(/\/\/.*@/, "//***@")}\n`,
);
console.log("| call | p50 ms | p99 ms |\n|---|---|---|");

const client = createIoredisClient(redisUrl);
await new Promise((resolve) => client.once("ready", resolve));
await time("Redis PING (one round trip)", () => client.ping());

// The previous limiter, rebuilt as it was: two sliding windows through the same adapter, started together.
const adapter = new IoredisScriptAdapter(client) as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"];
const sliding = (tokens: number, window: `${number} ms`, name: string) =>
  new Ratelimit({
    redis: adapter,
    limiter: Ratelimit.slidingWindow(tokens, window),
    prefix: `${prefix}:${name}`,
    timeout: 0,
    ephemeralCache: false,
    analytics: false,
    enableTelemetry: false,
  });
const burst = sliding(10, "1000 ms", "burst");
const minute = sliding(80, "60000 ms", "minute");
await time("before: two sliding windows (@upstash/ratelimit)", (i) =>
  Promise.all([burst.limit(key(i)), minute.limit(key(i))]),
);

const redisLimiter = createRateLimiter({
  backend: createTcpRedisBackend(redisUrl),
  prefix: `${prefix}:exact`,
  timeoutMs: 5000,
});
await time("now: exact rolling log, one script", (i) => redisLimiter.checkKeyRateLimit(key(i)));
await time("now: exact rolling log, key at its limit (80 entries)", () => redisLimiter.checkKeyRateLimit("hammered"));

const memoryLimiter = createRateLimiter({ backend: createMemoryBackend(), prefix: `${prefix}:memory` });
await time("in-process rolling log", (i) => memoryLimiter.checkKeyRateLimit(key(i)));

if (process.env.DATABASE_URL) {
  // The wrapper's key lookup: the same prepared statement shape (an indexed hash look-up) for a key
  // that does not exist, so no test data is needed; the plan is the same as for a hit.
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const lookup = () =>
    pool.query({
      name: "bench-key-lookup",
      text: "SELECT k.id FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL",
      values: ["0".repeat(64)],
    });
  await time("key lookup alone (PostgreSQL)", lookup);
  await time("key lookup, then the check (sequential)", async (i) => {
    await lookup();
    await redisLimiter.checkKeyRateLimit(key(i));
  });
  await time("key lookup beside the check (as the wrapper does now)", (i) =>
    Promise.all([lookup(), redisLimiter.checkKeyRateLimit(key(i))]),
  );
  await pool.end();
}

await redisLimiter.close();
await memoryLimiter.close();
client.disconnect();
