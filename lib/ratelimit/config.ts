// The documented rate limits (README) and the rate limiter's environment, read in one place.
// (lib/config/env.ts holds the variables shared with other domains: REDIS_URL, UPSTASH_REDIS_REST_*.)

/** A quota: `tokens` calls per window of `windowSeconds` (whole seconds: the RateLimit-Policy header says w=). */
export interface WindowQuota {
  tokens: number;
  windowSeconds: number;
}

/** README, "Rate limits and switches": 10 calls per rolling second and 80 per rolling minute, per API key. */
export const KEY_BURST_QUOTA: WindowQuota = { tokens: 10, windowSeconds: 1 };
export const KEY_MINUTE_QUOTA: WindowQuota = { tokens: 80, windowSeconds: 60 };

/** Failed authentications allowed per client network (IPv4 address, IPv6 /64) before its bad keys are refused for the rest of the window. */
export const AUTH_FAILURE_QUOTA: WindowQuota = { tokens: 20, windowSeconds: 60 };

export const DEFAULT_PREFIX = "rl";
export const DEFAULT_TIMEOUT_MS = 300;

function readPositiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Unset or empty variables mean the documented numbers; the window lengths are fixed (the names say them). */
export function readRateLimitEnv() {
  return {
    prefix: process.env.RATE_LIMIT_PREFIX || DEFAULT_PREFIX,
    timeoutMs: readPositiveInt("RATE_LIMIT_TIMEOUT_MS", DEFAULT_TIMEOUT_MS),
    burst: {
      tokens: readPositiveInt("RATE_LIMIT_KEY_BURST", KEY_BURST_QUOTA.tokens),
      windowSeconds: KEY_BURST_QUOTA.windowSeconds,
    },
    minute: {
      tokens: readPositiveInt("RATE_LIMIT_KEY_PER_MINUTE", KEY_MINUTE_QUOTA.tokens),
      windowSeconds: KEY_MINUTE_QUOTA.windowSeconds,
    },
    authFailures: {
      tokens: readPositiveInt("RATE_LIMIT_AUTH_FAILURES", AUTH_FAILURE_QUOTA.tokens),
      windowSeconds: readPositiveInt("RATE_LIMIT_AUTH_WINDOW_SECONDS", AUTH_FAILURE_QUOTA.windowSeconds),
    },
  };
}
