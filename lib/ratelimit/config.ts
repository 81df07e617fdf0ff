// The documented rate limits (docs/api.md: Rate limits); lib/config/env.ts reads the
// variables that override them.

/** A quota: `tokens` calls per window of `windowSeconds` (whole seconds: the RateLimit-Policy header says w=). */
export interface WindowQuota {
  tokens: number;
  windowSeconds: number;
}

/** docs/api.md, "Rate limits": 10 calls per rolling second and 80 per rolling minute, per API key. */
export const KEY_BURST_QUOTA: WindowQuota = { tokens: 10, windowSeconds: 1 };
export const KEY_MINUTE_QUOTA: WindowQuota = { tokens: 80, windowSeconds: 60 };

/** Failed authentications allowed per client network (IPv4 address, IPv6 /64) before its bad keys are refused for the rest of the window. */
export const AUTH_FAILURE_QUOTA: WindowQuota = { tokens: 20, windowSeconds: 60 };

export const DEFAULT_PREFIX = "rl";
export const DEFAULT_TIMEOUT_MS = 300;
