import { describe, expect, it } from "vitest";
import { delayBeforeAttempt, MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, RETRY_SCHEDULE_MS } from "@/lib/webhooks/retry-schedule";

describe("the retry schedule", () => {
  it("is at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h", () => {
    const s = 1000,
      min = 60 * s,
      h = 60 * min;
    expect(RETRY_SCHEDULE_MS).toEqual([0, 5 * s, 5 * min, 30 * min, 2 * h, 5 * h, 10 * h, 10 * h, 24 * h]);
    expect(MAX_ATTEMPTS).toBe(9);
  });

  it("spreads each wait by at most 10% either way", () => {
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      const base = RETRY_SCHEDULE_MS[attempt - 1]!;
      expect(delayBeforeAttempt(attempt, undefined, () => 0)).toBe(Math.round(base * 0.9));
      expect(delayBeforeAttempt(attempt, undefined, () => 0.5)).toBe(base);
      expect(delayBeforeAttempt(attempt, undefined, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.1));
    }
  });

  it("ends after the ninth attempt", () => {
    expect(delayBeforeAttempt(MAX_ATTEMPTS + 1)).toBeUndefined();
  });

  it("waits at least Retry-After, capped at a day", () => {
    expect(delayBeforeAttempt(2, 60, () => 0.5)).toBe(60_000);
    expect(delayBeforeAttempt(4, 60, () => 0.5)).toBe(RETRY_SCHEDULE_MS[3]);
    expect(delayBeforeAttempt(2, 10 * 86_400, () => 0.5)).toBe(MAX_RETRY_AFTER_MS);
  });
});
