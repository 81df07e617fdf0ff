// Pure parts of lib/ratelimit: the decision and its headers, the in-process rolling log and fixed
// window on a controlled clock (and their memory bounds), the failed-auth scope (IPv6 per /64), and
// the script flag stripping.
import { describe, expect, it } from "vitest";
import { buildDecision, wholeSeconds, type NamedWindowState } from "@/lib/ratelimit/build-decision";
import { createMemoryRollingLog, recordCall } from "@/lib/ratelimit/memory-rolling-log";
import { createMemoryFixedWindow } from "@/lib/ratelimit/memory-fixed-window";
import { authFailureScope } from "@/lib/ratelimit/auth-failure-scope";
import { createMemoryBackend, createRateLimiter } from "@/lib/ratelimit";
import { stripLuaFlags } from "@/lib/ratelimit/ioredis-adapter";

const burst = { tokens: 10, windowSeconds: 1 };
const minute = { tokens: 80, windowSeconds: 60 };
const CONTRACT = [
  { tokens: 10, windowMs: 1000 },
  { tokens: 80, windowMs: 60_000 },
];

function windows(b: NamedWindowState["state"], m: NamedWindowState["state"]): NamedWindowState[] {
  return [
    { name: "burst", quota: burst, state: b },
    { name: "minute", quota: minute, state: m },
  ];
}

describe("wholeSeconds", () => {
  it("rounds up (never too early) and is at least 1", () => {
    expect(wholeSeconds(1)).toBe(1);
    expect(wholeSeconds(1000)).toBe(1);
    expect(wholeSeconds(1001)).toBe(2);
    expect(wholeSeconds(0)).toBe(1);
  });
});

describe("buildDecision", () => {
  it("allows with both windows in the headers and no Retry-After", () => {
    expect(
      buildDecision(true, windows({ remaining: 5, resetInMs: 750 }, { remaining: 50, resetInMs: 39_750 })),
    ).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
      retryAfterMs: 0,
      headers: {
        "RateLimit-Policy": `"burst";q=10;w=1, "minute";q=80;w=60`,
        RateLimit: `"burst";r=5;t=1, "minute";r=50;t=40`,
        "X-RateLimit-Limit": "10",
        "X-RateLimit-Remaining": "5",
        "X-RateLimit-Reset": "1",
      },
    });
  });

  it("describes the window with fewer calls left in X-RateLimit-*, on a tie the one that frees later", () => {
    const fewer = buildDecision(true, windows({ remaining: 9, resetInMs: 900 }, { remaining: 3, resetInMs: 39_750 }));
    expect([
      fewer.headers["X-RateLimit-Limit"],
      fewer.headers["X-RateLimit-Remaining"],
      fewer.headers["X-RateLimit-Reset"],
    ]).toEqual(["80", "3", "40"]);
    const tie = buildDecision(false, windows({ remaining: 0, resetInMs: 300 }, { remaining: 0, resetInMs: 20_000 }));
    expect(tie.headers["X-RateLimit-Limit"]).toBe("80");
  });

  it("when refused, waits exactly until every full window has a slot again", () => {
    const burstOnly = buildDecision(
      false,
      windows({ remaining: 0, resetInMs: 310 }, { remaining: 40, resetInMs: 59_000 }),
    );
    expect([
      burstOnly.allowed,
      burstOnly.retryAfterMs,
      burstOnly.retryAfterSeconds,
      burstOnly.headers["Retry-After"],
    ]).toEqual([false, 310, 1, "1"]);
    const both = buildDecision(false, windows({ remaining: 0, resetInMs: 310 }, { remaining: 0, resetInMs: 39_001 }));
    expect([both.retryAfterMs, both.headers["Retry-After"]]).toEqual([39_001, "40"]);
  });
});

describe("recordCall (the in-process twin of the Lua script)", () => {
  it("admits 10 in a rolling second, refuses and counts the 11th, and frees a slot exactly one second after the oldest", () => {
    const log: number[] = [];
    for (let i = 0; i < 10; i++) expect(recordCall(log, 1000 + i * 10, CONTRACT, 80).allowed).toBe(true);
    const refused = recordCall(log, 1100, CONTRACT, 80);
    expect(refused).toEqual({
      allowed: false,
      windows: [
        { remaining: 0, resetInMs: 910 },
        { remaining: 69, resetInMs: 59_900 },
      ],
    });
    // 11 calls in the log now; the 10th most recent (at 1010) leaves at 2010, so 2009 is refused ...
    expect(recordCall(log, 2009, CONTRACT, 80).allowed).toBe(false);
    // ... and counted too: (1015, 2015] holds 1020..1100 and 2009, ten calls.
    expect(recordCall(log, 2015, CONTRACT, 80).allowed).toBe(false);
    expect(recordCall(log, 2100, CONTRACT, 80).allowed).toBe(true);
  });

  it("keeps only the newest `keep` entries, whatever a client sends", () => {
    const log: number[] = [];
    for (let i = 0; i < 1000; i++) recordCall(log, i, CONTRACT, 80);
    expect(log).toHaveLength(80);
    expect(log[0]).toBe(920);
  });

  it("keeps the log ordered when a clock steps back, and counts the later entries as inside the windows", () => {
    const log: number[] = [];
    recordCall(log, 5000, CONTRACT, 80);
    const back = recordCall(log, 4000, CONTRACT, 80);
    expect(log).toEqual([4000, 5000]);
    expect(back.windows[0]).toEqual({ remaining: 8, resetInMs: 1000 }); // the oldest counted is at 4000
  });
});

describe("in-process rolling log", () => {
  it("takes a retracted call back out, and forgets identifiers once their calls left the longest window", async () => {
    let now = 1_000_000;
    const log = createMemoryRollingLog({ windows: CONTRACT, prefix: "t", clock: () => now }, () => "m");
    for (let i = 0; i < 10; i++) await log.record("a");
    const eleventh = await log.record("a");
    expect(eleventh.allowed).toBe(false);
    await log.retract("a", eleventh.call);
    await log.retract("a", (await log.record("a")).call); // refused again, taken back again
    const unknown = await log.record("guess");
    await log.retract("guess", unknown.call);
    expect(log.size()).toBe(1); // the guessed identifier left nothing behind
    for (let i = 0; i < 50; i++) await log.record(`key-${i}`);
    expect(log.size()).toBe(51);
    now += 60_001;
    await log.record("b");
    expect(log.size()).toBe(1);
  });
});

describe("in-process fixed window", () => {
  it("counts every call, refused ones too, and starts over at the reset", async () => {
    let now = 60_000;
    const counter = createMemoryFixedWindow({ tokens: 3, windowMs: 60_000, prefix: "t", clock: () => now });
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 2, reset: 120_000 });
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 1 });
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 0 });
    expect(await counter.limit("ip")).toMatchObject({ success: false, remaining: 0 });
    now = 120_000;
    expect(await counter.limit("ip")).toMatchObject({ success: true, remaining: 2, reset: 180_000 });
  });

  it("holds at most maxIdentifiers, sweeping older windows and then the longest-held", async () => {
    let now = 0;
    const counter = createMemoryFixedWindow({ tokens: 3, windowMs: 60_000, prefix: "t", clock: () => now }, 100);
    for (let i = 0; i < 1000; i++) await counter.limit(`ip-${i}`);
    expect(counter.size()).toBe(100);
    expect(await counter.limit("ip-999")).toMatchObject({ remaining: 1 }); // recent ones are still counted
    now = 60_000;
    await counter.limit("fresh");
    expect(counter.size()).toBe(1);
  });
});

describe("authFailureScope", () => {
  it("counts IPv4 per address and IPv6 per /64 (mapped IPv4 as IPv4)", () => {
    expect(authFailureScope("203.0.113.7")).toBe("203.0.113.7");
    expect(authFailureScope("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(authFailureScope("2001:db8:1:2::a")).toBe("2001:db8:1:2::/64");
    expect(authFailureScope("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(authFailureScope("2001:db8:1:3::a")).toBe("2001:db8:1:3::/64");
    expect(authFailureScope("::1")).toBe("0:0:0:0::/64");
  });
});

describe("failed-auth memory of a limiter", () => {
  it("blocks a /64 as one client, and remembers at most maxRememberedBlocks networks", async () => {
    let now = 960_000; // the start of a fixed minute
    const limiter = createRateLimiter({
      backend: createMemoryBackend(),
      authFailures: { tokens: 2, windowSeconds: 60 },
      clock: () => now,
      maxRememberedBlocks: 50,
    });
    expect((await limiter.recordAuthFailure("2001:db8:1:2::a")).blocked).toBe(false);
    expect(await limiter.recordAuthFailure("2001:db8:1:2::b")).toEqual({ blocked: true, retryAfterSeconds: 60 });
    expect(limiter.authBlockedFor("2001:db8:1:2::ffff")).toBe(60);
    expect(limiter.authBlockedFor("2001:db8:1:3::a")).toBe(0);
    for (let i = 0; i < 500; i++) {
      await limiter.recordAuthFailure(`198.51.${i >> 8}.${i & 255}`);
      await limiter.recordAuthFailure(`198.51.${i >> 8}.${i & 255}`);
    }
    expect(limiter.rememberedBlocks()).toBe(50);
    expect(limiter.authBlockedFor("198.51.1.243")).toBeGreaterThan(0); // the newest blocks are kept
    now += 60_000;
    expect(limiter.authBlockedFor("198.51.1.243")).toBe(0);
  });
});

describe("stripLuaFlags", () => {
  it("drops the Upstash-only shebang line and leaves other scripts alone", () => {
    expect(stripLuaFlags("#!lua flags=allow-key-locking\n  local key = KEYS[1]\n")).toBe("  local key = KEYS[1]\n");
    expect(stripLuaFlags("local key = KEYS[1]\n")).toBe("local key = KEYS[1]\n");
  });
});
