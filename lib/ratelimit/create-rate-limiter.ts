// One rate limiter: the two per-key windows of the "Rate limits" of docs/api.md (one
// exact rolling log, one store round trip per check) and the failed-authentication budget per client
// network, over one store. Every check is bounded in time and refuses (throws
// RateLimitUnavailableError) when the store errs or is late: never an open door, never a hang.
import type { RateLimitBackend, RecordedCall } from "./backend";
import { authFailureScope } from "./auth-failure-scope";
import { buildDecision, wholeSeconds, type RateLimitDecision } from "./build-decision";
import {
  AUTH_FAILURE_QUOTA,
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  KEY_BURST_QUOTA,
  KEY_MINUTE_QUOTA,
  type WindowQuota,
} from "./config";
import { DeadlineExceededError, RateLimitUnavailableError, withDeadline } from "./unavailable";
import { logger, messageOf } from "../observability/logger";

const log = logger("ratelimit");

export interface RateLimiterOptions {
  backend: RateLimitBackend;
  /** Key prefix in the store; tests use their own. Default "rl". */
  prefix?: string;
  /** Longest wait for the store per check. Default 300 ms. */
  timeoutMs?: number;
  /** Quotas; the defaults are the documented limits (docs/api.md). Tests may change the numbers, the names stay. */
  burst?: WindowQuota;
  minute?: WindowQuota;
  authFailures?: WindowQuota;
  /** Unix ms; tests pass a clock they drive, so timelines need no real waiting. Default Date.now. */
  clock?: () => number;
  /** Blocked client networks remembered in this process (oldest dropped first). Default 10,000. */
  maxRememberedBlocks?: number;
}

export interface AuthFailureOutcome {
  /** This failure used up the network's budget: further bad keys from it are refused until the reset. */
  blocked: boolean;
  /** Seconds until the budget resets when blocked, else 0. */
  retryAfterSeconds: number;
}

/** A per-key check under way. */
export interface KeyRateLimitCheck {
  /** The decision; rejects with RateLimitUnavailableError when the store cannot answer in time. */
  decision: Promise<RateLimitDecision>;
  /** The identifier turned out to belong to no key: take this call back out of its log. Never rejects. */
  retract(): Promise<void>;
}

export interface RateLimiter {
  /** Starts counting one call of the key (every keyed request, refused or not) and deciding. */
  startKeyRateLimit(identifier: string | number): KeyRateLimitCheck;
  /** startKeyRateLimit(identifier).decision */
  checkKeyRateLimit(identifier: string | number): Promise<RateLimitDecision>;
  /** Counts one failed authentication from `ip` (its /64 for IPv6) in the store shared by all instances. */
  recordAuthFailure(ip: string): Promise<AuthFailureOutcome>;
  /** Seconds bad keys from `ip` stay refused according to this instance's memory (no store round trip), or 0. */
  authBlockedFor(ip: string): number;
  /** Blocked networks this instance remembers (bounded by maxRememberedBlocks). */
  rememberedBlocks(): number;
  close(): Promise<void>;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { backend } = options;
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const burst = options.burst ?? KEY_BURST_QUOTA;
  const minute = options.minute ?? KEY_MINUTE_QUOTA;
  const authFailures = options.authFailures ?? AUTH_FAILURE_QUOTA;
  const clock = options.clock ?? Date.now;
  const bounded = boundedStoreCalls(backend, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const blocks = new RememberedBlocks(options.maxRememberedBlocks ?? 10_000, clock);

  const keyLog = backend.createRollingLog({
    prefix: `${prefix}:key`,
    windows: [burst, minute].map((quota) => ({ tokens: quota.tokens, windowMs: quota.windowSeconds * 1000 })),
    clock,
  });
  const authWindow = backend.createFixedWindow({
    prefix: `${prefix}:authfail`,
    tokens: authFailures.tokens,
    windowMs: authFailures.windowSeconds * 1000,
    clock,
  });

  function startKeyRateLimit(identifier: string | number): KeyRateLimitCheck {
    const id = String(identifier);
    let recorded: Promise<RecordedCall> | undefined;
    const decision = bounded(async () => {
      const pending = keyLog.record(id);
      recorded = pending.then((result) => result.call);
      recorded.catch(() => undefined);
      const result = await pending;
      const [burstState, minuteState] = result.windows;
      if (!burstState || !minuteState) throw new Error("the rate-limit store answered fewer windows than asked");
      return buildDecision(result.allowed, [
        { name: "burst", quota: burst, state: burstState },
        { name: "minute", quota: minute, state: minuteState },
      ]);
    });
    // The caller may drop the check (the key lookup failed first); its failure is then nobody's error.
    decision.catch(() => undefined);
    return {
      decision,
      async retract() {
        // After the record has landed, so the removal cannot overtake it on the way to the store.
        await recorded?.then((call) => bounded(() => keyLog.retract(id, call))).catch(() => undefined);
      },
    };
  }

  return {
    startKeyRateLimit,
    checkKeyRateLimit: (identifier) => startKeyRateLimit(identifier).decision,

    async recordAuthFailure(ip) {
      const scope = authFailureScope(ip);
      const result = await bounded(() => authWindow.limit(scope));
      if (result.remaining > 0) return { blocked: false, retryAfterSeconds: 0 };
      const now = clock();
      blocks.remember(scope, result.reset, now);
      return { blocked: true, retryAfterSeconds: wholeSeconds(result.reset - now) };
    },

    authBlockedFor: (ip) => blocks.secondsLeft(authFailureScope(ip)),
    rememberedBlocks: () => blocks.size,
    close: () => backend.close(),
  };
}

/**
 * Calls to the store, each bounded by `timeoutMs`: an error or a late answer is a
 * RateLimitUnavailableError, and the log says once when the store stops answering and once when it
 * answers again.
 */
function boundedStoreCalls(backend: RateLimitBackend, timeoutMs: number) {
  let failing = false;
  return async function bounded<T>(work: () => Promise<T>): Promise<T> {
    try {
      const value = await withDeadline(work(), timeoutMs);
      if (failing) log.info(`${backend.kind} store answers again`);
      failing = false;
      return value;
    } catch (error) {
      if (error instanceof DeadlineExceededError) backend.noteTimeout?.(timeoutMs);
      // One line per outage, not one per request.
      if (!failing) log.error(`${backend.kind} store unavailable: ${messageOf(error)}`);
      failing = true;
      throw new RateLimitUnavailableError(`rate-limit store (${backend.kind}) unavailable`, { cause: error });
    }
  };
}

/** The client networks this process knows to be blocked, so their bad keys are refused without a store round trip. */
class RememberedBlocks {
  /** Network -> Unix ms until which its bad keys are refused; filled when a failure uses up the budget. */
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly clock: () => number,
  ) {}

  get size(): number {
    return this.blockedUntil.size;
  }

  remember(scope: string, until: number, now: number): void {
    const { blockedUntil } = this;
    blockedUntil.delete(scope); // re-inserted last: Map order is the order of blocking
    if (blockedUntil.size >= this.max) {
      for (const [known, end] of blockedUntil) if (end <= now) blockedUntil.delete(known);
      // Still full of live blocks: forget the oldest. The shared count still refuses that network on
      // its next failure; only the store round trip before it comes back.
      for (const known of blockedUntil.keys()) {
        if (blockedUntil.size < this.max) break;
        blockedUntil.delete(known);
      }
    }
    blockedUntil.set(scope, until);
  }

  /** Seconds the network stays blocked, or 0 (a block that has ended is forgotten). */
  secondsLeft(scope: string): number {
    const until = this.blockedUntil.get(scope);
    if (until === undefined) return 0;
    const now = this.clock();
    if (until <= now) {
      this.blockedUntil.delete(scope);
      return 0;
    }
    return wholeSeconds(until - now);
  }
}
