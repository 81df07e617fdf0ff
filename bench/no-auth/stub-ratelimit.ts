// Stand-in for lib/ratelimit/index.ts in the bench's auth-off service: no store round trip, every
// call allowed. The rest of the module (types, factories) is the real one.
import * as real from "../../lib/ratelimit/index";

export * from "../../lib/ratelimit/index";

for (const name of [
  "checkKeyRateLimit",
  "startKeyRateLimit",
  "recordAuthFailure",
  "authBlockedFor",
  "getRateLimiter",
]) {
  if (!(name in real)) console.warn(`[no-auth] lib/ratelimit/index.ts no longer exports ${name}: update bench/no-auth`);
}

const allowed = { allowed: true, retryAfterSeconds: 0, retryAfterMs: 0, headers: {} as Record<string, string> };

export async function checkKeyRateLimit(_identifier: string | number) {
  return allowed;
}

export function startKeyRateLimit(_identifier: string | number) {
  return { decision: Promise.resolve(allowed), retract: async () => undefined };
}

export async function recordAuthFailure(_ip: string) {
  return { blocked: false, retryAfterSeconds: 0 };
}

export function authBlockedFor(_ip: string): number {
  return 0;
}

const noLimiter = {
  checkKeyRateLimit,
  startKeyRateLimit,
  recordAuthFailure,
  authBlockedFor,
  close: async () => undefined,
};

export function getRateLimiter(): typeof noLimiter {
  return noLimiter;
}

export async function closeRateLimiter(): Promise<void> {}
