// Turns the windows' answers into the API's decision and headers (IETF httpapi ratelimit-headers
// draft, plus the widespread X-RateLimit-* trio). Pure: the caller passes the clock.
import type { WindowResult } from "./backend";
import type { WindowQuota } from "./config";

export interface NamedWindowResult {
  name: string;
  quota: WindowQuota;
  result: WindowResult;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** 0 when allowed. When refused: whole seconds after which this client's next call is admitted. */
  retryAfterSeconds: number;
  /** Attach to every keyed response, refused or not. */
  headers: Record<string, string>;
}

/**
 * Whole seconds from `now` until just after `resetMs`. At the reset instant itself a sliding window
 * still weighs the ending window fully, so a full window admits only strictly after it: hence +1 ms.
 */
export function secondsUntil(resetMs: number, now: number): number {
  return Math.max(1, Math.ceil((resetMs - now + 1) / 1000));
}

export function buildDecision(windows: NamedWindowResult[], now: number): RateLimitDecision {
  const allowed = windows.every((window) => window.result.success);

  // Honest Retry-After: a window that refused, or that this call left empty, keeps refusing at most
  // until its reset (after it the ending window's weight drops below the quota); a window with calls
  // left only gains more with time. So wait for the latest reset among those windows.
  let retryAfterSeconds = 0;
  if (!allowed) {
    for (const { result } of windows) {
      if (!result.success || result.remaining === 0) retryAfterSeconds = Math.max(retryAfterSeconds, secondsUntil(result.reset, now));
    }
  }

  // X-RateLimit-* describe one window: the binding one, with fewer calls left; on a tie the one that
  // resets later, since it is the one that keeps a client waiting. Reset is delta seconds (not a Unix
  // time), as in RateLimit's t=, so clients need no synchronised clock.
  const binding = windows.reduce((best, window) =>
    window.result.remaining < best.result.remaining ||
    (window.result.remaining === best.result.remaining && window.result.reset > best.result.reset)
      ? window
      : best,
  );

  const headers: Record<string, string> = {
    "RateLimit-Policy": windows.map(({ name, quota }) => `"${name}";q=${quota.tokens};w=${quota.windowSeconds}`).join(", "),
    RateLimit: windows.map(({ name, result }) => `"${name}";r=${result.remaining};t=${secondsUntil(result.reset, now)}`).join(", "),
    "X-RateLimit-Limit": String(binding.quota.tokens),
    "X-RateLimit-Remaining": String(binding.result.remaining),
    "X-RateLimit-Reset": String(secondsUntil(binding.result.reset, now)),
  };
  if (!allowed) headers["Retry-After"] = String(retryAfterSeconds);
  return { allowed, retryAfterSeconds, headers };
}
