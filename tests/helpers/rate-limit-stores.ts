// The rate limiter's three stores, as the limit tests run the same cases on each: the in-process
// one, Redis over TCP (REDIS_URL) and Upstash REST (a local server speaking Upstash's protocol in
// front of the same Redis, tests/helpers/upstash-rest-server.ts). The two on Redis are skipped,
// with a warning, when REDIS_URL is not set.
import { afterAll, beforeAll } from "vitest";
import {
  createMemoryBackend,
  createTcpRedisBackend,
  createUpstashBackend,
  type RateLimitBackend,
} from "@/lib/ratelimit";
import { startUpstashRestServer, type UpstashRestServer } from "./upstash-rest-server";

const redisUrl = process.env.REDIS_URL;

// What is counted is under test, not how long a store may take: the production bound (300 ms,
// RATE_LIMIT_TIMEOUT_MS) once expired on a plain call over Upstash REST in a full run beside two busy
// loops, answering RATE_LIMIT_UNAVAILABLE. The bound has its own tests with stores that never answer
// (tests/integration/ratelimit-availability.test.ts).
export const STORE_TIMEOUT_MS = 5000;

export interface StoreFixture {
  name: string;
  /** Counts are shared by every limiter on this store (as by app instances on one Redis). */
  shared: boolean;
  /** Runs only with REDIS_URL: describe.skipIf(store.skip). */
  skip: boolean;
  backend(): RateLimitBackend;
}

/**
 * The three stores for the calling test file; starts the Upstash REST server before its tests and
 * closes it after. `tests` names them in the warning printed when REDIS_URL is missing.
 */
export function useRateLimitStores(tests: string): StoreFixture[] {
  if (!redisUrl) console.warn(`SKIPPED: ${tests} on TCP Redis and Upstash REST, because REDIS_URL is not set`);
  let upstash: UpstashRestServer | undefined;
  beforeAll(async () => {
    if (redisUrl) upstash = await startUpstashRestServer(redisUrl);
  });
  afterAll(async () => {
    await upstash?.close();
  });
  return [
    { name: "the in-process store", shared: false, skip: false, backend: () => createMemoryBackend() },
    { name: "Redis over TCP", shared: true, skip: !redisUrl, backend: () => createTcpRedisBackend(redisUrl!) },
    {
      name: "Upstash REST",
      shared: true,
      skip: !redisUrl,
      backend: () => createUpstashBackend({ url: upstash!.url, token: upstash!.token, timeoutMs: STORE_TIMEOUT_MS }),
    },
  ];
}
