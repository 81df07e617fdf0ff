// The per-key limits count exactly (docs/api.md: Rate limits), proven with generated request
// timelines on every store: the in-process one, Redis over TCP (REDIS_URL) and Upstash REST (a local
// server speaking Upstash's protocol in front of the same Redis). The limiter runs on a clock the
// test drives, so a timeline of minutes takes milliseconds; every answer is compared with a naive
// model of the rule (tests/helpers/rate-limit-model.ts):
//   - a call is admitted iff fewer than 10 calls fell in the rolling second before it and fewer than
//     80 in the rolling minute (every call counts, refused ones too);
//   - so a client that never exceeds 10 in any rolling second and 80 in any rolling minute is never
//     refused, and the 11th call within a rolling second always is;
//   - Retry-After (and its exact milliseconds) is when the next call is admitted: at that instant it
//     is, one millisecond earlier it is not.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter, type RateLimiter, type RateLimiterOptions } from "@/lib/ratelimit";
import { modelAnswer, withinLimits, type ModelWindow } from "../helpers/rate-limit-model";
import { STORE_TIMEOUT_MS, useRateLimitStores } from "../helpers/rate-limit-stores";

const stores = useRateLimitStores("exact-window property tests");

const runPrefix = `rltest:${process.pid}:${Date.now()}:exact`;
const CONTRACT: ModelWindow[] = [
  { name: "burst", tokens: 10, windowMs: 1000 },
  { name: "minute", tokens: 80, windowMs: 60_000 },
];

/** Steps of a timeline: wait `ms`, or (after a refusal) wait exactly Retry-After, or 1 ms less. */
type Step = { gap: number } | { retry: "exact" | "early" };

// Bursty timelines test the second; paced ones (a call every 80-700 ms) fill the minute without
// the second refusing, so both windows are exercised. Window edges get constants of their own.
const burstyGap = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 150 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 1200 }) },
  { weight: 2, arbitrary: fc.constantFrom(1000, 999, 1001, 500) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 70_000 }) },
);
// noBias: fast-check's bias towards a range's bounds would make most paced gaps 80 ms, a rate the
// burst window refuses before the minute can.
const pacedGap = fc.oneof(
  { weight: 12, arbitrary: fc.noBias(fc.integer({ min: 80, max: 500 })) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1000, 60_000, 59_999, 60_001) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3000 }) },
);
const gaps = (maxLength: number) =>
  fc
    .boolean()
    .chain((paced) => fc.array(paced ? pacedGap : burstyGap, { minLength: paced ? 120 : 1, maxLength, size: "max" }));
const steps = (maxLength: number) =>
  fc.boolean().chain((paced) =>
    fc.array(
      fc.oneof(
        { weight: 8, arbitrary: (paced ? pacedGap : burstyGap).map((ms): Step => ({ gap: ms })) },
        { weight: 1, arbitrary: fc.constantFrom<Step>({ retry: "exact" }, { retry: "early" }) },
      ),
      // A paced timeline long enough to pass 80 calls within a minute.
      { minLength: paced ? Math.min(120, maxLength) : 1, maxLength, size: "max" },
    ),
  );

// Every run also plays these fixed timelines first (fast-check's `examples`), so the minute window is
// reached on every run, not only when the random draw happens to get there: a steady 5 calls a
// second, well inside the burst, passes 80 in the minute at its 81st call.
const steadyFiveASecond: Step[] = Array.from({ length: 100 }, () => ({ gap: 200 }));
const steadyFiveASecondGaps: number[] = Array.from({ length: 150 }, () => 200);

for (const [index, store] of stores.entries()) {
  const storePrefix = `${runPrefix}:${index}`; // TCP and REST share one Redis: keep their keys apart
  describe.skipIf(store.skip)(`exact rolling windows on ${store.name}`, () => {
    let now = 1_900_000_000_000;
    let identifiers = 0;
    const created: RateLimiter[] = [];
    afterAll(async () => {
      await Promise.all(created.map((limiter) => limiter.close()));
    });
    function limiter(options: Partial<RateLimiterOptions> = {}): RateLimiter {
      const instance = createRateLimiter({
        backend: store.backend(),
        prefix: storePrefix,
        timeoutMs: STORE_TIMEOUT_MS,
        clock: () => now,
        ...options,
      });
      created.push(instance);
      return instance;
    }
    let contract: RateLimiter;
    beforeAll(() => {
      contract = limiter();
    });

    /** Calls refused by the longer window alone: the timelines must reach it, not only the burst. */
    let minuteRefusals = 0;

    /** Plays a timeline against `rl` and checks every answer against the model. */
    async function play(rl: RateLimiter, windows: ModelWindow[], timeline: Step[]) {
      const key = `key-${++identifiers}`;
      const history: number[] = [];
      let lastRetryAfterMs = 0;
      for (const step of timeline) {
        if ("gap" in step) now += step.gap;
        else if (lastRetryAfterMs > 0) now += step.retry === "exact" ? lastRetryAfterMs : lastRetryAfterMs - 1;
        else continue; // nothing was refused just before: no Retry-After to obey
        const decision = await rl.checkKeyRateLimit(key);
        const expected = modelAnswer(history, now, windows);
        const context = `call ${history.length + 1} at +${now - (history[0] ?? now)} ms`;
        expect(decision.allowed, context).toBe(expected.allowed);
        expect(decision.retryAfterMs, context).toBe(expected.retryAfterMs);
        expect(decision.headers.RateLimit, context).toBe(expected.rateLimitHeader);
        if ("retry" in step)
          expect(
            decision.allowed,
            `${context}, after waiting Retry-After ${step.retry === "early" ? "minus 1 ms" : "exactly"}`,
          ).toBe(step.retry === "exact");
        if (decision.allowed) expect(decision.headers["Retry-After"]).toBeUndefined();
        else expect(decision.headers["Retry-After"]).toBe(String(Math.ceil(expected.retryAfterMs / 1000)));
        // The 11th call within a rolling second is refused, whatever came before.
        if (history.filter((time) => time > now - 1000).length >= 10) expect(decision.allowed, context).toBe(false);
        else if (!decision.allowed) minuteRefusals++;
        history.push(now);
        lastRetryAfterMs = decision.retryAfterMs;
      }
    }

    it("answers every call of a generated timeline exactly as the rolling-count rule does (10/s, 80/min)", async () => {
      await fc.assert(
        fc.asyncProperty(steps(220), async (timeline) => {
          now += 120_000; // each timeline on a fresh key, far from the last one
          await play(contract, CONTRACT, timeline);
        }),
        { numRuns: 60, examples: [[steadyFiveASecond]] },
      );
      expect(minuteRefusals, "timelines that reach the minute window").toBeGreaterThan(0);
    }, 240_000);

    let ridingTheMinute = 0;
    it("never refuses a client that stays within 10 per rolling second and 80 per rolling minute", async () => {
      await fc.assert(
        fc.asyncProperty(gaps(400), async (gapList) => {
          now += 120_000;
          const start = now;
          let at = start;
          const wanted = gapList.map((ms) => (at += ms));
          // A client riding the limits: every call it can make without exceeding them.
          const calls = withinLimits(wanted, CONTRACT);
          if (calls.length < withinLimits(wanted, [CONTRACT[0]!]).length) ridingTheMinute++;
          const key = `key-${++identifiers}`;
          for (const time of calls) {
            now = time;
            const decision = await contract.checkKeyRateLimit(key);
            expect(decision.allowed, `call at +${time - start} ms`).toBe(true);
          }
          now = at;
        }),
        { numRuns: 25, examples: [[steadyFiveASecondGaps]] },
      );
      expect(ridingTheMinute, "timelines held back by the minute window").toBeGreaterThan(0);
    }, 240_000);

    it("keeps to other quotas exactly too (small windows, both refusing in turn)", async () => {
      const quotas = fc
        .record({
          burstTokens: fc.integer({ min: 1, max: 4 }),
          burstSeconds: fc.integer({ min: 1, max: 2 }),
          extraTokens: fc.integer({ min: 0, max: 6 }),
          factor: fc.integer({ min: 2, max: 4 }),
        })
        .map(({ burstTokens, burstSeconds, extraTokens, factor }) => ({
          burst: { tokens: burstTokens, windowSeconds: burstSeconds },
          minute: { tokens: burstTokens + extraTokens, windowSeconds: burstSeconds * factor },
        }));
      await fc.assert(
        fc.asyncProperty(quotas, steps(60), async (quota, timeline) => {
          now += 120_000;
          const rl = limiter({ ...quota, prefix: `${storePrefix}:q${identifiers}` });
          await play(
            rl,
            [
              { name: "burst", tokens: quota.burst.tokens, windowMs: quota.burst.windowSeconds * 1000 },
              { name: "minute", tokens: quota.minute.tokens, windowMs: quota.minute.windowSeconds * 1000 },
            ],
            timeline,
          );
        }),
        { numRuns: 25 },
      );
    }, 240_000);

    it(
      "checks and records atomically: 25 calls at one instant admit exactly 10" +
        (store.shared ? ", across two instances" : ""),
      async () => {
        now += 120_000;
        const other = store.shared ? limiter() : contract;
        const key = `key-${++identifiers}`;
        const decisions = await Promise.all(
          Array.from({ length: 25 }, (_, i) => (i % 2 ? other : contract).checkKeyRateLimit(key)),
        );
        expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
        for (const decision of decisions.filter((d) => !d.allowed)) expect(decision.retryAfterMs).toBe(1000);
      },
    );

    it("forgets a retracted call (a key that turned out unknown leaves no count)", async () => {
      now += 120_000;
      const key = `key-${++identifiers}`;
      for (let call = 0; call < 9; call++) await contract.checkKeyRateLimit(key);
      const check = contract.startKeyRateLimit(key);
      expect((await check.decision).headers.RateLimit).toMatch(/^"burst";r=0;/);
      await check.retract();
      expect((await contract.checkKeyRateLimit(key)).allowed).toBe(true);
      expect((await contract.checkKeyRateLimit(key)).allowed).toBe(false);
    });
  });
}
