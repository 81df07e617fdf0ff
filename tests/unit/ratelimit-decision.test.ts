// Pure parts of lib/ratelimit: the decision and its headers, the in-process windows (same arithmetic
// as @upstash/ratelimit's Lua scripts) on a controlled clock, and the script flag stripping.
import { describe, expect, it } from "vitest";
import { buildDecision, secondsUntil, type NamedWindowResult } from "@/lib/ratelimit/build-decision";
import { createMemoryWindow } from "@/lib/ratelimit/memory-backend";
import { stripLuaFlags } from "@/lib/ratelimit/ioredis-adapter";

const burst = { tokens: 10, windowSeconds: 1 };
const minute = { tokens: 80, windowSeconds: 60 };
const NOW = 1_700_000_000_250; // 250 ms into a second, 20.25 s into a minute

function windows(b: Partial<NamedWindowResult["result"]>, m: Partial<NamedWindowResult["result"]>): NamedWindowResult[] {
  return [
    { name: "burst", quota: burst, result: { success: true, limit: 10, remaining: 5, reset: NOW + 750, ...b } },
    { name: "minute", quota: minute, result: { success: true, limit: 80, remaining: 50, reset: NOW + 39_750, ...m } },
  ];
}

describe("secondsUntil", () => {
  it("rounds up to whole seconds and lands strictly after the reset", () => {
    expect(secondsUntil(NOW + 750, NOW)).toBe(1);
    expect(secondsUntil(NOW + 39_750, NOW)).toBe(40);
    expect(secondsUntil(NOW + 1000, NOW)).toBe(2); // exactly on the reset is not after it
    expect(secondsUntil(NOW - 5, NOW)).toBe(1);
  });
});

describe("buildDecision", () => {
  it("allows when both windows admit, with both windows in the headers and no Retry-After", () => {
    const decision = buildDecision(windows({ remaining: 5 }, { remaining: 50 }), NOW);
    expect(decision).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      headers: {
        "RateLimit-Policy": `"burst";q=10;w=1, "minute";q=80;w=60`,
        RateLimit: `"burst";r=5;t=1, "minute";r=50;t=40`,
        "X-RateLimit-Limit": "10",
        "X-RateLimit-Remaining": "5",
        "X-RateLimit-Reset": "1",
      },
    });
  });

  it("describes the window with fewer calls left in X-RateLimit-*", () => {
    const decision = buildDecision(windows({ remaining: 9 }, { remaining: 3 }), NOW);
    expect(decision.headers["X-RateLimit-Limit"]).toBe("80");
    expect(decision.headers["X-RateLimit-Remaining"]).toBe("3");
    expect(decision.headers["X-RateLimit-Reset"]).toBe("40");
  });

  it("on a tie picks the window that resets later", () => {
    const decision = buildDecision(windows({ success: false, remaining: 0 }, { remaining: 0 }), NOW);
    expect(decision.headers["X-RateLimit-Limit"]).toBe("80");
  });

  it("refuses on the burst window with Retry-After until its reset", () => {
    const decision = buildDecision(windows({ success: false, remaining: 0 }, { remaining: 40 }), NOW);
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBe(1);
    expect(decision.headers["Retry-After"]).toBe("1");
  });

  it("waits for the minute window too when this refused call used its last call", () => {
    const decision = buildDecision(windows({ success: false, remaining: 0 }, { remaining: 0 }), NOW);
    expect(decision.retryAfterSeconds).toBe(40);
  });

  it("takes the larger wait when both windows refuse", () => {
    const decision = buildDecision(windows({ success: false, remaining: 0 }, { success: false, remaining: 0 }), NOW);
    expect(decision.retryAfterSeconds).toBe(40);
    expect(decision.headers["Retry-After"]).toBe("40");
  });
});

describe("in-process sliding window (same arithmetic as @upstash/ratelimit)", () => {
  const spec = { algorithm: "sliding" as const, tokens: 10, windowMs: 1000, prefix: "t" };

  it("admits the quota, refuses the next call without counting it, and keys are independent", async () => {
    let now = 5_000;
    const counter = createMemoryWindow(spec, () => now);
    for (let i = 1; i <= 10; i++) expect(await counter.limit("a")).toMatchObject({ success: true, remaining: 10 - i, reset: 6_000 });
    expect(await counter.limit("a")).toEqual({ success: false, limit: 10, remaining: 0, reset: 6_000 });
    expect(await counter.limit("b")).toMatchObject({ success: true, remaining: 9 });
    // Refused calls were not counted: just after the reset the full previous window weighs 9.99 -> 9.
    now = 6_001;
    expect(await counter.limit("a")).toMatchObject({ success: true, remaining: 0 });
    expect(await counter.limit("a")).toMatchObject({ success: false });
  });

  it("weighs the previous window by the part of it still inside the rolling window", async () => {
    let now = 10_000;
    const counter = createMemoryWindow(spec, () => now);
    for (let i = 0; i < 10; i++) await counter.limit("a");
    now = 11_500; // half of the previous window still counts: floor(0.5 * 10) = 5
    for (let i = 0; i < 5; i++) expect((await counter.limit("a")).success).toBe(true);
    expect((await counter.limit("a")).success).toBe(false);
    now = 12_999; // previous = 5 calls, weight 0.001 -> 0
    expect(await counter.limit("a")).toMatchObject({ success: true, remaining: 9 });
    now = 20_000; // idle windows later: nothing counts
    expect(await counter.limit("a")).toMatchObject({ success: true, remaining: 9 });
  });
});

describe("in-process fixed window", () => {
  it("counts every call, refused ones too, and starts over at the reset", async () => {
    let now = 60_000;
    const counter = createMemoryWindow({ algorithm: "fixed", tokens: 3, windowMs: 60_000, prefix: "t" }, () => now);
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 2, reset: 120_000 });
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 1 });
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 0 });
    expect(await counter.limit("ip")).toMatchObject({ success: false, remaining: 0 });
    now = 120_000;
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 2, reset: 180_000 });
  });
});

describe("stripLuaFlags", () => {
  it("drops the Upstash-only shebang line and leaves other scripts alone", () => {
    expect(stripLuaFlags("#!lua flags=allow-key-locking\n  local key = KEYS[1]\n")).toBe("  local key = KEYS[1]\n");
    expect(stripLuaFlags("local key = KEYS[1]\n")).toBe("local key = KEYS[1]\n");
  });
});
