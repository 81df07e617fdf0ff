// The shared stores. Both run through @upstash/ratelimit's Ratelimit class, so every instance counts
// in the same Redis keys: the per-key limits with our exact rolling-log script (a custom limiter),
// failed authentications with the library's fixedWindow. Upstash through its REST client, any other
// Redis through ioredis and the adapter.
import { randomBytes } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis as UpstashRedis } from "@upstash/redis";
import type { FixedWindow, FixedWindowSpec, RateLimitBackend, RollingLog, RollingLogSpec } from "./backend";
import { createIoredisClient, IoredisScriptAdapter } from "./ioredis-adapter";
import { retractFromLog, rollingLogAlgorithm, type RollingLogResponse, type ZremRedis } from "./rolling-log-script";

type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

function ratelimit(
  redis: RatelimitRedis,
  prefix: string,
  limiter: ConstructorParameters<typeof Ratelimit>[0]["limiter"],
) {
  return new Ratelimit({
    redis,
    limiter,
    prefix,
    // Its own timeout answers "success" when the store is slow (an open door): off; the caller bounds
    // every check itself and refuses instead.
    timeout: 0,
    // Its local cache of refused identifiers would refuse until a reset the rolling log does not
    // have: off, so every store answers exactly as the in-process one does.
    ephemeralCache: false,
    analytics: false,
    enableTelemetry: false,
  });
}

/** Members of the sorted sets: unique across instances (random tag) and calls (counter). */
function memberSource(): () => string {
  const tag = randomBytes(6).toString("base64url");
  let calls = 0;
  return () => `${tag}:${(++calls).toString(36)}`;
}

function rollingLog(redis: RatelimitRedis, spec: RollingLogSpec, nextMember: () => string): RollingLog {
  const limiter = ratelimit(redis, spec.prefix, rollingLogAlgorithm(spec, nextMember));
  return {
    record: async (identifier) => (await limiter.limit(identifier)) as RollingLogResponse,
    retract: (identifier, call) => retractFromLog(redis as unknown as ZremRedis, `${spec.prefix}:${identifier}`, call),
  };
}

function fixedWindow(redis: RatelimitRedis, spec: FixedWindowSpec): FixedWindow {
  // The library's fixed window reads Date.now() itself; spec.clock serves the in-process store.
  const limiter = ratelimit(redis, spec.prefix, Ratelimit.fixedWindow(spec.tokens, `${spec.windowMs} ms`));
  return { limit: (identifier) => limiter.limit(identifier) };
}

export function createUpstashBackend(options: { url: string; token: string; timeoutMs: number }): RateLimitBackend {
  const redis = new UpstashRedis({
    url: options.url,
    token: options.token,
    // One immediate retry covers a pooled keep-alive socket the server had closed; the default (5,
    // with exponential backoff) would outlast the bound. The signal frees a request nobody waits for.
    retry: { retries: 1, backoff: () => 0 },
    signal: () => AbortSignal.timeout(options.timeoutMs),
    enableTelemetry: false,
    // Calls made in the same tick (checks of concurrent requests) travel in one /pipeline request.
    enableAutoPipelining: true,
  });
  const nextMember = memberSource();
  return {
    kind: "upstash",
    createRollingLog: (spec) => rollingLog(redis, spec, nextMember),
    createFixedWindow: (spec) => fixedWindow(redis, spec),
    close: async () => undefined, // HTTP only: nothing stays open
  };
}

export function createTcpRedisBackend(url: string): RateLimitBackend {
  const client = createIoredisClient(url);
  const adapter = new IoredisScriptAdapter(client);
  // @upstash/ratelimit's type asks for a whole @upstash/redis client; without dynamicLimits it calls
  // only evalsha and eval (its NOSCRIPT fallback), and the rolling log also zrem: the adapter's three.
  const redis = adapter as unknown as RatelimitRedis;
  const nextMember = memberSource();
  return {
    kind: "redis",
    createRollingLog: (spec) => rollingLog(redis, spec, nextMember),
    createFixedWindow: (spec) => fixedWindow(redis, spec),
    noteTimeout: (timeoutMs) => adapter.replaceIfHung(timeoutMs),
    close: async () => client.disconnect(),
  };
}
