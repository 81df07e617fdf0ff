// The process's rate limiter, built on first use from the configuration: Upstash REST when
// UPSTASH_REDIS_REST_* are set, else Redis over TCP (REDIS_URL), else in-process counts (one instance only).
import { env } from "../config/env";
import type { RateLimitBackend } from "./backend";
import {
  createRateLimiter,
  type AuthFailureOutcome,
  type KeyRateLimitCheck,
  type RateLimiter,
} from "./create-rate-limiter";
import { createMemoryBackend } from "./memory-backend";
import { createTcpRedisBackend, createUpstashBackend } from "./redis-backends";
import type { RateLimitDecision } from "./build-decision";

export type { RateLimitDecision } from "./build-decision";
export type { AuthFailureOutcome, KeyRateLimitCheck, RateLimiter, RateLimiterOptions } from "./create-rate-limiter";
export type { RateLimitBackend } from "./backend";
export { RateLimitUnavailableError } from "./unavailable";
export { createRateLimiter } from "./create-rate-limiter";
export { createMemoryBackend } from "./memory-backend";
export { createTcpRedisBackend, createUpstashBackend } from "./redis-backends";

function createBackendFromEnv(timeoutMs: number): RateLimitBackend {
  const { upstashUrl, upstashToken, redisUrl } = env();
  if (upstashUrl && upstashToken) return createUpstashBackend({ url: upstashUrl, token: upstashToken, timeoutMs });
  if (redisUrl) return createTcpRedisBackend(redisUrl);
  return createMemoryBackend();
}

let shared: RateLimiter | undefined;

function getRateLimiter(): RateLimiter {
  if (!shared) {
    const config = env().rateLimit;
    shared = createRateLimiter({ ...config, backend: createBackendFromEnv(config.timeoutMs) });
  }
  return shared;
}

/** The per-key limits (docs/api.md: Rate limits) for one API key; throws RateLimitUnavailableError when the store cannot answer in time. */
export function checkKeyRateLimit(identifier: string | number): Promise<RateLimitDecision> {
  return getRateLimiter().checkKeyRateLimit(identifier);
}

/** Starts the per-key check without waiting (the wrapper runs it beside the key lookup). */
export function startKeyRateLimit(identifier: string | number): KeyRateLimitCheck {
  return getRateLimiter().startKeyRateLimit(identifier);
}

/** After a failed authentication; throws RateLimitUnavailableError like checkKeyRateLimit. */
export function recordAuthFailure(ip: string): Promise<AuthFailureOutcome> {
  return getRateLimiter().recordAuthFailure(ip);
}

/** Seconds bad keys from this IP (its /64 for IPv6) stay refused (0: none). Synchronous, no store round trip. */
export function authBlockedFor(ip: string): number {
  return shared ? shared.authBlockedFor(ip) : 0;
}

/** Quits the store's connections (process shutdown, end of a test file). */
export async function closeRateLimiter(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.close();
}
