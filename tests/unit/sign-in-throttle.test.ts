import { describe, expect, it } from "vitest";
import {
  SignInThrottle,
  SIGN_IN_POLICIES,
  type ThrottlePolicy,
  type ThrottleScope,
} from "@/lib/admin-sign-in/sign-in-throttle";
import { createBoundedQueue, QueueFullError } from "@/lib/admin-sign-in/bounded-queue";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const small: Record<ThrottleScope, ThrottlePolicy> = {
  email: { free: 2, baseDelayMs: 1_000, maxDelayMs: 4_000, lockAfter: 5, lockMs: 60_000, windowMs: 600_000 },
  ip: { free: 4, baseDelayMs: 1_000, maxDelayMs: 4_000, lockAfter: 8, lockMs: 60_000, windowMs: 600_000 },
};

describe("SignInThrottle", () => {
  it("allows the free attempts, then backs off doubling, then locks out (once) and lets go after the lockout", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
    // Third attempt: 1 s after the last one.
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toMatchObject({
      allowed: false,
      reason: "throttled",
      scope: "email",
      retryAfterMs: 1_000,
    });
    // A refusal counts towards the lockout but does not lengthen the wait.
    time.advance(1_000);
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
    // Three checked: the wait doubles to 2 s.
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toMatchObject({
      allowed: false,
      reason: "throttled",
      retryAfterMs: 2_000,
    });
    // Five counted (3 checked, 2 refused): the next attempt starts the lockout and reports it,
    // later ones only refuse.
    const locking = throttle.attempt("203.0.113.1", "a@x.io");
    expect(locking).toMatchObject({
      allowed: false,
      reason: "locked",
      scope: "email",
      retryAfterMs: 60_000,
      newLockout: { scope: "email", subject: "a@x.io", failures: 5 },
    });
    time.advance(30_000);
    const still = throttle.attempt("203.0.113.1", "a@x.io");
    expect(still).toMatchObject({ allowed: false, reason: "locked", retryAfterMs: 30_000 });
    expect(still).not.toHaveProperty("newLockout");
    // The email is locked, not the IP: another admin from there still gets in.
    expect(throttle.attempt("203.0.113.1", "b@x.io")).toEqual({ allowed: true });
    time.advance(30_000);
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
  });

  it("locks an IP that tries many emails, whichever email it tries next", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    for (let i = 0; i < 4; i++) expect(throttle.attempt("198.51.100.7", `u${i}@x.io`).allowed).toBe(true);
    const refusals = Array.from({ length: 5 }, (_, i) => throttle.attempt("198.51.100.7", `v${i}@x.io`));
    expect(refusals.map((r) => (r.allowed ? "allowed" : r.reason))).toEqual([
      "throttled",
      "throttled",
      "throttled",
      "throttled",
      "locked",
    ]);
    expect(refusals[4]).toMatchObject({ scope: "ip", newLockout: { scope: "ip", subject: "198.51.100.7" } });
    expect(throttle.attempt("198.51.100.7", "fresh@x.io")).toMatchObject({
      allowed: false,
      reason: "locked",
      scope: "ip",
    });
    expect(throttle.attempt("198.51.100.8", "fresh@x.io")).toEqual({ allowed: true });
  });

  it("answers for an IP alone (before the email is known), and counts refusals for a full queue against it", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    expect(throttle.checkIp("203.0.113.9")).toEqual({ allowed: true });
    for (let i = 0; i < 7; i++) throttle.countRefused("203.0.113.9");
    expect(throttle.checkIp("203.0.113.9")).toEqual({ allowed: true });
    throttle.countRefused("203.0.113.9");
    // Eight counted: the IP locks at its next attempt, whatever the email.
    expect(throttle.checkIp("203.0.113.9")).toMatchObject({
      allowed: false,
      reason: "locked",
      newLockout: { scope: "ip", failures: 8 },
    });
    expect(throttle.attempt("203.0.113.9", "anyone@x.io")).toMatchObject({
      allowed: false,
      reason: "locked",
      scope: "ip",
    });
  });

  it("a right password gives the email its attempts back", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    throttle.attempt("203.0.113.1", "a@x.io");
    throttle.attempt("203.0.113.1", "a@x.io");
    throttle.succeeded("203.0.113.1", "a@x.io");
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
  });

  it("forgets a subject after its window", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    throttle.attempt("203.0.113.1", "a@x.io");
    throttle.attempt("203.0.113.1", "a@x.io");
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toMatchObject({ allowed: false, reason: "throttled" });
    time.advance(600_001);
    expect(throttle.attempt("203.0.113.1", "a@x.io")).toEqual({ allowed: true });
  });

  it("counts an IPv6 client by its /64, as the API's limiter does", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    // Each attempt from a different address of one /64, each at a different email.
    for (let i = 0; i < 4; i++) expect(throttle.attempt(`2001:db8:1:2::${i + 1}`, `u${i}@x.io`).allowed).toBe(true);
    expect(throttle.attempt("2001:db8:1:2:ffff::9", "v@x.io")).toMatchObject({ allowed: false, scope: "ip" });
    for (let i = 0; i < 8; i++) throttle.countRefused(`2001:db8:1:2::${100 + i}`);
    expect(throttle.checkIp("2001:db8:1:2:abcd::1")).toMatchObject({
      allowed: false,
      reason: "locked",
      newLockout: { scope: "ip", subject: "2001:db8:1:2::/64" },
    });
    // Another /64 is someone else.
    expect(throttle.attempt("2001:db8:1:3::1", "v@x.io")).toEqual({ allowed: true });
  });

  it("locks the source, not the account: an email locked from one source still signs in from another", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now);
    let lockout;
    for (let i = 0; i < 20 && !lockout; i++) {
      const decision = throttle.attempt("198.51.100.66", "admin@x.io");
      if (!decision.allowed && decision.newLockout) lockout = decision.newLockout;
      time.advance(5_000);
    }
    // The lockout is still reported for the audit, naming the email.
    expect(lockout).toMatchObject({ scope: "email", subject: "admin@x.io" });
    expect(throttle.attempt("198.51.100.66", "admin@x.io")).toMatchObject({ allowed: false, reason: "locked" });
    // The admin, elsewhere, is not locked out and not even slowed down.
    expect(throttle.attempt("203.0.113.200", "admin@x.io")).toEqual({ allowed: true });
    expect(throttle.attempt("203.0.113.200", "admin@x.io")).toEqual({ allowed: true });
  });

  it("never forgets an active lockout to make room, however many new subjects arrive", () => {
    const time = clock();
    const throttle = new SignInThrottle(small, time.now, { maxSubjects: 100, log: () => undefined });
    for (let i = 0; i < 8; i++) throttle.countRefused("192.0.2.1");
    expect(throttle.checkIp("192.0.2.1")).toMatchObject({ allowed: false, reason: "locked" });
    for (let i = 0; i < 1_000; i++) throttle.attempt(`10.0.${i >> 8}.${i & 255}`, "a@x.io");
    expect(throttle.checkIp("192.0.2.1")).toMatchObject({ allowed: false, reason: "locked" });
    // Once over, the lockout lets go.
    time.advance(60_001);
    expect(throttle.checkIp("192.0.2.1")).toEqual({ allowed: true });
  });

  describe("with its table full", () => {
    const MAX = 50;
    /** A throttle whose IP table holds MAX sources, each with one failure (live for the window). */
    function fullThrottle() {
      const time = clock();
      const lines: string[] = [];
      const throttle = new SignInThrottle(small, time.now, { maxSubjects: MAX, log: (line) => lines.push(line) });
      for (let i = 0; i < MAX; i++) expect(throttle.attempt(`10.1.0.${i}`, "a@x.io")).toEqual({ allowed: true });
      return { time, lines, throttle };
    }

    it("refuses a newcomer, however often it tries, and says so in one log line", () => {
      const { lines, throttle } = fullThrottle();
      for (let i = 0; i < 100; i++) {
        expect(throttle.checkIp("203.0.113.9")).toMatchObject({ allowed: false, reason: "full", scope: "ip" });
        expect(throttle.attempt("203.0.113.9", "a@x.io")).toMatchObject({
          allowed: false,
          reason: "full",
          scope: "ip",
          retryAfterMs: 60_000,
        });
        // Other newcomers alike: none is admitted uncounted.
        expect(throttle.attempt(`198.51.100.${i}`, `n${i}@x.io`)).toMatchObject({ allowed: false, reason: "full" });
      }
      expect(lines).toEqual([expect.stringContaining("full")]);
    });

    it("keeps counting the subjects it knows, up to their lockout", () => {
      const { time, throttle } = fullThrottle();
      const answers = [];
      for (let i = 0; i < 20; i++) {
        answers.push(throttle.attempt("10.1.0.7", "a@x.io"));
        time.advance(5_000);
      }
      expect(answers.at(-1)).toMatchObject({ allowed: false, reason: "locked" });
      expect(answers.filter((a) => a.allowed).length).toBeLessThan(small.ip.lockAfter);
      // A known source with an email it has not tried is a newcomer to the full email table.
      expect(throttle.attempt("10.1.0.8", "new@x.io")).toMatchObject({
        allowed: false,
        reason: "full",
        scope: "email",
      });
    });

    it("refuses a newcomer when the per-source email table is full, too", () => {
      const time = clock();
      // One source trying MAX emails fills the email table; its own limit is set out of the way.
      const wide: Record<ThrottleScope, ThrottlePolicy> = {
        ...small,
        ip: { ...small.ip, free: 1_000, lockAfter: 1_000 },
      };
      const throttle = new SignInThrottle(wide, time.now, { maxSubjects: MAX, log: () => undefined });
      for (let i = 0; i < MAX; i++) expect(throttle.attempt("10.2.0.1", `e${i}@x.io`)).toEqual({ allowed: true });
      // A new source has room in the IP table, none in the email table: refused, not admitted.
      expect(throttle.attempt("10.2.0.2", "e0@x.io")).toMatchObject({ allowed: false, reason: "full", scope: "email" });
    });

    it("makes room only from entries that restrict nothing any more, and logs again when it fills again", () => {
      const { time, lines, throttle } = fullThrottle();
      expect(throttle.attempt("203.0.113.9", "a@x.io")).toMatchObject({ reason: "full" });
      // Half the window: every entry still counts, still full.
      time.advance(300_000);
      expect(throttle.attempt("203.0.113.9", "a@x.io")).toMatchObject({ reason: "full" });
      // Past the window the old entries go, and newcomers are counted from their first attempt.
      time.advance(300_001);
      for (let i = 0; i < MAX; i++) expect(throttle.attempt(`10.3.0.${i}`, "b@x.io")).toEqual({ allowed: true });
      expect(throttle.attempt("203.0.113.9", "a@x.io")).toMatchObject({ allowed: false, reason: "full" });
      expect(lines).toHaveLength(2);
    });
  });

  it("ships policies that lock an email before an IP", () => {
    expect(SIGN_IN_POLICIES.email.lockAfter).toBeLessThan(SIGN_IN_POLICIES.ip.lockAfter);
    expect(SIGN_IN_POLICIES.email.free).toBeLessThan(SIGN_IN_POLICIES.email.lockAfter);
  });
});

describe("createBoundedQueue", () => {
  it("runs at most `concurrency` tasks, queues up to `maxWaiting`, refuses the rest at once", async () => {
    const queue = createBoundedQueue({ concurrency: 2, maxWaiting: 3 });
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const task = () =>
      new Promise<number>((resolve) => {
        running++;
        peak = Math.max(peak, running);
        gates.push(() => {
          running--;
          resolve(running);
        });
      });
    const accepted = Array.from({ length: 5 }, () => queue.run(task));
    await expect(queue.run(task)).rejects.toBeInstanceOf(QueueFullError);
    expect(queue.load()).toEqual({ running: 2, waiting: 3 });
    // Open the gates one at a time until all five have run.
    for (let done = 0; done < 5; done++) {
      await new Promise((resolve) => setImmediate(resolve));
      gates.shift()!();
    }
    await Promise.all(accepted);
    expect(peak).toBe(2);
    expect(queue.load()).toEqual({ running: 0, waiting: 0 });
  });

  it("frees the slot when a task fails", async () => {
    const queue = createBoundedQueue({ concurrency: 1, maxWaiting: 0 });
    await expect(queue.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(queue.run(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
