// The shared stores. Both run @upstash/ratelimit's own algorithms, so every instance counts in the
// same Redis keys: Upstash through its REST client, any other Redis through ioredis and the adapter.
import { Ratelimit } from "@upstash/ratelimit";
import { Redis as UpstashRedis } from "@upstash/redis";
import type { RateLimitBackend, WindowSpec } from "./backend";
import { createIoredisClient, IoredisScriptAdapter } from "./ioredis-adapter";

type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

function ratelimitWindow(redis: RatelimitRedis, spec: WindowSpec) {
  const window = `${spec.windowMs} ms` as const;
  return new Ratelimit({
    redis,
    limiter: spec.algorithm === "sliding" ? Ratelimit.slidingWindow(spec.tokens, window) : Ratelimit.fixedWindow(spec.tokens, window),
    prefix: spec.prefix,
    // Its own timeout answers "success" when the store is slow (an open door): off; the caller bounds
    // every check itself and refuses instead.
    timeout: 0,
    // Its local cache of refused identifiers would refuse until the window's end where the sliding
    // window may already admit: off, so every store answers exactly as the in-process one does.
    ephemeralCache: false,
    analytics: false,
    enableTelemetry: false,
  });
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
    // Calls made in the same tick (both windows of one check) travel in one /pipeline request.
    enableAutoPipelining: true,
  });
  return {
    kind: "upstash",
    createWindow: (spec) => ratelimitWindow(redis, spec),
    close: async () => undefined, // HTTP only: nothing stays open
  };
}

export function createTcpRedisBackend(url: string): RateLimitBackend {
  const client = createIoredisClient(url);
  const adapter = new IoredisScriptAdapter(client);
  return {
    kind: "redis",
    // @upstash/ratelimit's type asks for evalsha, get and set; without dynamicLimits it calls only
    // evalsha and eval (its NOSCRIPT fallback), which the adapter implements.
    createWindow: (spec) => ratelimitWindow(adapter as unknown as RatelimitRedis, spec),
    noteTimeout: (timeoutMs) => adapter.replaceIfHung(timeoutMs),
    close: async () => client.disconnect(),
  };
}
