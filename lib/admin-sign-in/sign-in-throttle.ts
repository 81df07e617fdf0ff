// Failed dashboard sign-ins, counted per source and per email from that source. After a few free attempts each
// further one must wait twice as long as the one before (backoff); an attempt that does not wait is
// refused without a password check and still counted, and past a limit the IP or email is locked
// out for a while (the source, or the email from that source only). An attempt counts the moment it starts, so a burst of parallel guesses is
// throttled as surely as a slow series; a successful sign-in gives the email its attempts back.
// Kept in process memory, bounded: each web process counts on its own (docs/dashboard.md). It never
// fails open: only entries that restrict nothing any more are forgotten, and when the table is full
// of live ones a source (or email) it does not know is refused, not admitted uncounted.
// A source is an IPv4 address or an IPv6 /64, as for the API's limiter (one subscriber holds a /64).
import { authFailureScope } from "../ratelimit/auth-failure-scope";
import { logger } from "../observability/logger";

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
 * Subjects remembered per scope (each entry takes a few hundred bytes). Only an entry whose window
 * or lockout has passed is forgotten to make room: a flood of new subjects must not lift a lockout
 * or a backoff.
 */
const MAX_SUBJECTS = 50_000;
/** Oldest entries looked at per newcomer for one that may be forgotten: eviction stays O(1). */
const EVICTION_SCAN = 64;
/** The wait a newcomer refused by a full table is told (entries expire within a window). */
const FULL_RETRY_MS = 60_000;

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
      /** "full": a newcomer, and the table has no room for it. */
      reason: "throttled" | "locked" | "full";
      scope: ThrottleScope;
      retryAfterMs: number;
      newLockout?: NewLockout;
    };

export class SignInThrottle {
  private readonly entries: Record<ThrottleScope, Map<string, Entry>> = { ip: new Map(), email: new Map() };
  /** Scopes whose fullness is logged already: one line when a table fills, another after it had room. */
  private readonly fullLogged = new Set<ThrottleScope>();

  constructor(
    private readonly policies: Record<ThrottleScope, ThrottlePolicy> = SIGN_IN_POLICIES,
    private readonly now: () => number = Date.now,
    private readonly options: { maxSubjects?: number; log?: (line: string) => void } = {},
  ) {}

  private get maxSubjects(): number {
    return this.options.maxSubjects ?? MAX_SUBJECTS;
  }

  private isDead(scope: ThrottleScope, entry: Entry, now: number): boolean {
    if (entry.lockedUntil > now) return false;
    return entry.lockedUntil !== 0 || now - entry.lastSeenAt > this.policies[scope].windowMs;
  }

  /** The live entry, or undefined once its lockout or its window has passed. */
  private read(scope: ThrottleScope, subject: string): Entry | undefined {
    const entry = this.entries[scope].get(subject);
    if (!entry) return undefined;
    if (this.isDead(scope, entry, this.now())) {
      this.entries[scope].delete(subject);
      return undefined;
    }
    return entry;
  }

  /**
   * Whether a subject without an entry can have one: the table has room, or an entry that restricts
   * nothing any more (among the oldest) is forgotten to make it. Live entries met on the way move
   * to the recent end, so the next look starts past them.
   */
  private makeRoom(scope: ThrottleScope): boolean {
    const map = this.entries[scope];
    const now = this.now();
    for (let i = 0; i < EVICTION_SCAN && map.size >= this.maxSubjects; i++) {
      const oldest = map.keys().next().value!;
      const entry = map.get(oldest)!;
      map.delete(oldest);
      if (!this.isDead(scope, entry, now)) map.set(oldest, entry);
    }
    const room = map.size < this.maxSubjects;
    if (room) this.fullLogged.delete(scope);
    else if (!this.fullLogged.has(scope)) {
      this.fullLogged.add(scope);
      (this.options.log ?? ((line: string) => logger("sign-in").warn(line)))(
        `sign-in throttle: its table of ${scope === "ip" ? "sources" : "emails per source"} is full ` +
          `(${map.size} live entries): sign-ins it cannot count are refused until entries expire`,
      );
    }
    return room;
  }

  private check(scope: ThrottleScope, subject: string, audited = subject): ThrottleDecision {
    const entry = this.read(scope, subject);
    if (!entry) {
      if (this.makeRoom(scope)) return { allowed: true };
      return { allowed: false, reason: "full", scope, retryAfterMs: FULL_RETRY_MS };
    }
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

  /** The subject's live entry, created if need be (when check() found room), moved to the most recently seen end. */
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
    return entry;
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
    const source = authFailureScope(ip);
    // Without room it is not counted; it was refused anyway.
    if (this.read("ip", source) || this.makeRoom("ip")) this.touch("ip", source).refused++;
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
