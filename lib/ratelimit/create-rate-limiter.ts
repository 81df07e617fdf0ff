// One rate limiter: the two per-key windows of SPEC section 8 and the per-IP budget of failed
// authentications, over one store. Every check is bounded in time and refuses (throws
// RateLimitUnavailableError) when the store errs or is late: never an open door, never a hang.
import type { RateLimitBackend, WindowCounter } from "./backend";
import { buildDecision, secondsUntil, type RateLimitDecision } from "./build-decision";
import {
  AUTH_FAILURE_QUOTA,
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  KEY_BURST_QUOTA,
  KEY_MINUTE_QUOTA,
  type WindowQuota,
} from "./config";
import { DeadlineExceededError, RateLimitUnavailableError, withDeadline } from "./unavailable";

export interface RateLimiterOptions {
  backend: RateLimitBackend;
  /** Key prefix in the store; tests use their own. Default "rl". */
  prefix?: string;
  /** Longest wait for the store per check. Default 300 ms. */
  timeoutMs?: number;
  /** Quotas; the defaults are SPEC section 8's. Tests may change the numbers, the names stay. */
  burst?: WindowQuota;
  minute?: WindowQuota;
  authFailures?: WindowQuota;
}

export interface AuthFailureOutcome {
  /** This failure used up the IP's budget: the IP is refused until the window resets. */
  blocked: boolean;
  /** Seconds until the budget resets when blocked, else 0. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one call of the key (every keyed request, refused or not) and decides. */
  checkKeyRateLimit(identifier: string | number): Promise<RateLimitDecision>;
  /** Counts one failed authentication from `ip` in the store shared by all instances. */
  recordAuthFailure(ip: string): Promise<AuthFailureOutcome>;
  /** Seconds `ip` stays refused according to this instance's memory (no store round trip), or 0. */
  authBlockedFor(ip: string): number;
  close(): Promise<void>;
}

const MAX_REMEMBERED_BLOCKS = 10_000;

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { backend } = options;
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const burst = options.burst ?? KEY_BURST_QUOTA;
  const minute = options.minute ?? KEY_MINUTE_QUOTA;
  const authFailures = options.authFailures ?? AUTH_FAILURE_QUOTA;

  const window = (name: string, quota: WindowQuota, algorithm: "sliding" | "fixed"): WindowCounter =>
    backend.createWindow({ algorithm, tokens: quota.tokens, windowMs: quota.windowSeconds * 1000, prefix: `${prefix}:${name}` });
  const burstWindow = window("burst", burst, "sliding");
  const minuteWindow = window("minute", minute, "sliding");
  // Fixed window: every failure counts, and a blocked IP's budget comes back whole at the reset.
  const authWindow = window("authfail", authFailures, "fixed");

  /** IP -> Unix ms until which it is refused; filled when a failure uses up the budget. */
  const blockedUntil = new Map<string, number>();
  let failing = false;

  async function bounded<T>(work: () => Promise<T>): Promise<T> {
    try {
      const value = await withDeadline(work(), timeoutMs);
      if (failing) console.info(`[ratelimit] ${backend.kind} store answers again`);
      failing = false;
      return value;
    } catch (error) {
      if (error instanceof DeadlineExceededError) backend.noteTimeout?.(timeoutMs);
      // One line per outage, not one per request.
      if (!failing) console.error(`[ratelimit] ${backend.kind} store unavailable:`, error instanceof Error ? error.message : error);
      failing = true;
      throw new RateLimitUnavailableError(`rate-limit store (${backend.kind}) unavailable`, { cause: error });
    }
  }

  function rememberBlock(ip: string, until: number, now: number) {
    if (blockedUntil.size >= MAX_REMEMBERED_BLOCKS) {
      for (const [known, end] of blockedUntil) if (end <= now) blockedUntil.delete(known);
    }
    blockedUntil.set(ip, until);
  }

  return {
    async checkKeyRateLimit(identifier) {
      const id = String(identifier);
      const now = Date.now();
      // Both windows at once: one round trip (pipelined on the TCP connection, one /pipeline request
      // over REST). A call one window refuses still counts in the other if that one admits it.
      const [burstResult, minuteResult] = await bounded(() => Promise.all([burstWindow.limit(id), minuteWindow.limit(id)]));
      return buildDecision(
        [
          { name: "burst", quota: burst, result: burstResult },
          { name: "minute", quota: minute, result: minuteResult },
        ],
        now,
      );
    },

    async recordAuthFailure(ip) {
      const now = Date.now();
      const result = await bounded(() => authWindow.limit(ip));
      if (result.remaining > 0) return { blocked: false, retryAfterSeconds: 0 };
      rememberBlock(ip, result.reset, now);
      return { blocked: true, retryAfterSeconds: secondsUntil(result.reset, now) };
    },

    authBlockedFor(ip) {
      const until = blockedUntil.get(ip);
      if (until === undefined) return 0;
      const now = Date.now();
      if (until <= now) {
        blockedUntil.delete(ip);
        return 0;
      }
      return secondsUntil(until, now);
    },

    close: () => backend.close(),
  };
}
