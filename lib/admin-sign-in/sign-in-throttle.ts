// Failed dashboard sign-ins, counted per source and per email from that source. After a few free attempts each
// further one must wait twice as long as the one before (backoff); an attempt that does not wait is
// refused without a password check and still counted, and past a limit the IP or email is locked
// out for a while (the source, or the email from that source only). An attempt counts the moment it starts, so a burst of parallel guesses is
// throttled as surely as a slow series; a successful sign-in gives the email its attempts back.
// Kept in process memory, bounded: each web process counts on its own (docs/dashboard.md).
// A source is an IPv4 address or an IPv6 /64, as for the API's limiter (one subscriber holds a /64).
import { authFailureScope } from "../ratelimit/auth-failure-scope";

export type ThrottleScope = "ip" | "email";

export interface ThrottlePolicy {
  /** Failures allowed without waiting. */
  free: number;
  /** The wait after the first failure beyond the free ones; doubles with each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts (failed, or refused for not waiting) within the window that lock the subject out. */
  lockAfter: number;
  lockMs: number;
  /** A subject with no attempt for this long starts again from zero. */
  windowMs: number;
}

export const SIGN_IN_POLICIES: Record<ThrottleScope, ThrottlePolicy> = {
  email: { free: 3, baseDelayMs: 1_000, maxDelayMs: 30_000, lockAfter: 10, lockMs: 15 * 60_000, windowMs: 15 * 60_000 },
  // Several admins can share an office's address: more room, same shape.
  ip: { free: 10, baseDelayMs: 1_000, maxDelayMs: 30_000, lockAfter: 30, lockMs: 15 * 60_000, windowMs: 15 * 60_000 },
};

/**
 * Subjects remembered per scope; the least recently seen unlocked ones are forgotten first (an
 * active lockout is never forgotten to make room: a flood of new subjects must not lift it).
 */
const MAX_SUBJECTS = 10_000;
/** Oldest entries looked at per insertion for one that may be forgotten: eviction stays O(1). */
const EVICTION_SCAN = 64;

interface Entry {
  /** Attempts that checked a password and have not succeeded: they set the backoff. */
  failures: number;
  /** Attempts refused for not waiting (or for a full queue): they count towards the lockout only. */
  refused: number;
  /** The last attempt that checked a password: the backoff runs from here. */
  lastCheckedAt: number;
  /** The last attempt of any kind: the window runs from here. */
  lastSeenAt: number;
  lockedUntil: number;
}

/** A scope that this attempt locked out (to be audited), with how many attempts it had made. */
export interface NewLockout {
  scope: ThrottleScope;
  /** The source (IPv4 address or IPv6 /64) for "ip", the email for "email". */
  subject: string;
  failures: number;
  lockedUntil: Date;
}

export type ThrottleDecision =
  | { allowed: true }
  | {
      allowed: false;
      reason: "throttled" | "locked";
      scope: ThrottleScope;
      retryAfterMs: number;
      newLockout?: NewLockout;
    };

export class SignInThrottle {
  private readonly entries: Record<ThrottleScope, Map<string, Entry>> = { ip: new Map(), email: new Map() };

  constructor(
    private readonly policies: Record<ThrottleScope, ThrottlePolicy> = SIGN_IN_POLICIES,
    private readonly now: () => number = Date.now,
  ) {}

  /** The live entry, or undefined once its lockout or its window has passed. */
  private read(scope: ThrottleScope, subject: string): Entry | undefined {
    const entry = this.entries[scope].get(subject);
    if (!entry) return undefined;
    const now = this.now();
    if (entry.lockedUntil > now) return entry;
    if (entry.lockedUntil !== 0 || now - entry.lastSeenAt > this.policies[scope].windowMs) {
      this.entries[scope].delete(subject);
      return undefined;
    }
    return entry;
  }

  private check(scope: ThrottleScope, subject: string, audited = subject): ThrottleDecision {
    const entry = this.read(scope, subject);
    if (!entry) return { allowed: true };
    const now = this.now();
    if (entry.lockedUntil > now)
      return { allowed: false, reason: "locked", scope, retryAfterMs: entry.lockedUntil - now };
    const policy = this.policies[scope];
    if (entry.failures + entry.refused >= policy.lockAfter) {
      entry.lockedUntil = now + policy.lockMs;
      return {
        allowed: false,
        reason: "locked",
        scope,
        retryAfterMs: policy.lockMs,
        newLockout: {
          scope,
          subject: audited,
          failures: entry.failures + entry.refused,
          lockedUntil: new Date(entry.lockedUntil),
        },
      };
    }
    const beyond = entry.failures - policy.free;
    if (beyond < 0) return { allowed: true };
    const wait = entry.lastCheckedAt + Math.min(policy.baseDelayMs * 2 ** beyond, policy.maxDelayMs) - now;
    if (wait <= 0) return { allowed: true };
    // Not waiting is counted towards the lockout (a client that ignores the backoff is a script),
    // but does not lengthen the wait.
    entry.refused++;
    entry.lastSeenAt = now;
    return { allowed: false, reason: "throttled", scope, retryAfterMs: wait };
  }

  /** The subject's live entry, created if need be, moved to the most recently seen end. */
  private touch(scope: ThrottleScope, subject: string): Entry {
    const map = this.entries[scope];
    const entry = this.read(scope, subject) ?? {
      failures: 0,
      refused: 0,
      lastCheckedAt: 0,
      lastSeenAt: 0,
      lockedUntil: 0,
    };
    entry.lastSeenAt = this.now();
    map.delete(subject);
    map.set(subject, entry);
    if (map.size > MAX_SUBJECTS) this.evict(map, subject);
    return entry;
  }

  /** Forgets the least recently seen entry that is not locked out; a locked one met on the way is kept. */
  private evict(map: Map<string, Entry>, newcomer: string): void {
    const now = this.now();
    for (let i = 0; i < EVICTION_SCAN; i++) {
      const oldest = map.keys().next().value!;
      const entry = map.get(oldest)!;
      map.delete(oldest);
      if (oldest === newcomer || entry.lockedUntil <= now) return;
      // Still locked: moved to the recent end so the next scan starts past it.
      map.set(oldest, entry);
    }
    // Only lockouts at the old end: the newcomer is not remembered (its source's IP entry still is).
    map.delete(newcomer);
  }

  /** The email's entry is per source: failures from one source never lock the email for the others. */
  private static emailKey(source: string, email: string): string {
    return `${source} ${email}`;
  }

  /** The IP's verdict alone: the host asks before the request body (and its email) is read. */
  checkIp(ip: string): ThrottleDecision {
    return this.check("ip", authFailureScope(ip));
  }

  /** An attempt from this IP refused before any check (the sign-in queue was full). */
  countRefused(ip: string): void {
    this.touch("ip", authFailureScope(ip)).refused++;
  }

  /**
   * Decides whether an attempt may check a password; when it may, counts it as a failure until
   * succeeded() says otherwise.
   */
  attempt(ip: string, email: string): ThrottleDecision {
    const source = authFailureScope(ip);
    const ipDecision = this.check("ip", source);
    if (!ipDecision.allowed) return ipDecision;
    // Lock the source, not the account: anyone could otherwise lock an admin out from anywhere.
    const emailDecision = this.check("email", SignInThrottle.emailKey(source, email), email);
    if (!emailDecision.allowed) return emailDecision;
    for (const [scope, subject] of [
      ["ip", source],
      ["email", SignInThrottle.emailKey(source, email)],
    ] as const) {
      const entry = this.touch(scope, subject);
      entry.failures++;
      entry.lastCheckedAt = entry.lastSeenAt;
    }
    return { allowed: true };
  }

  /** The password was right: the email starts again, and the IP gets this attempt back. */
  succeeded(ip: string, email: string): void {
    const source = authFailureScope(ip);
    this.entries.email.delete(SignInThrottle.emailKey(source, email));
    const entry = this.entries.ip.get(source);
    if (entry && entry.lockedUntil === 0) entry.failures = Math.max(0, entry.failures - 1);
  }
}
