import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  createSandboxSupplier,
  sandboxBehaviourFor,
  sandboxBehaviours,
  sandboxCodeRules,
} from "@/lib/suppliers/sandbox-supplier";
import { ConfigError, loadEnv } from "@/lib/config/env";
import type { TopupRequest } from "@/lib/suppliers/types";

const markdownUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.join(entry.parentPath, entry.name));

const topup = (userId: string | undefined, reference = `ref-${userId}`): TopupRequest => ({
  reference,
  sku: "BR-100",
  game: "br",
  userId,
});

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe("sandbox supplier: players", () => {
  const sandbox = createSandboxSupplier({ slowMs: 0 });

  it("any other id succeeds, and verify names the player after the last 4 characters", async () => {
    expect(await sandbox.placeTopup(topup("12345"))).toEqual({ status: "success", supplierRef: "SANDBOX-ref-12345" });
    expect(await sandbox.checkTopup("ref-12345")).toEqual({ status: "success", supplierRef: "SANDBOX-ref-12345" });
    expect(await sandbox.verifyPlayer({ game: "br", playerId: "12345" })).toEqual({
      status: "found",
      nickname: "Player-2345",
    });
    expect(await sandbox.verifyPlayer({ game: "moba", playerId: "88881234", zoneId: "2001" })).toEqual({
      status: "found",
      nickname: "Player-1234",
    });
  });

  it("*404 is a player that does not exist", async () => {
    expect(await sandbox.placeTopup(topup("7000404"))).toEqual({
      status: "failed",
      reason: "PLAYER NOT FOUND",
      failure: "customer",
      supplierRef: "SANDBOX-ref-7000404",
    });
    expect(await sandbox.checkTopup("ref-7000404")).toMatchObject({ status: "failed", reason: "PLAYER NOT FOUND" });
    expect(await sandbox.verifyPlayer({ game: "br", playerId: "7000404" })).toEqual({ status: "not_found" });
    expect(await sandbox.redeemCode({ reference: "r1", playerId: "7000404", code: "GOOD-1234" })).toEqual({
      status: "player_not_found",
    });
  });

  it("*500 is a supplier that rejects top-ups and is unavailable for verify and redeem", async () => {
    expect(await sandbox.placeTopup(topup("61500"))).toMatchObject({
      status: "failed",
      reason: "SUPPLIER REJECTED",
      failure: "supplier",
    });
    expect(await sandbox.checkTopup("ref-61500")).toMatchObject({ status: "failed", reason: "SUPPLIER REJECTED" });
    expect(await sandbox.verifyPlayer({ game: "br", playerId: "61500" })).toMatchObject({ status: "unavailable" });
    expect(await sandbox.redeemCode({ reference: "r2", playerId: "61500", code: "GOOD-1234" })).toMatchObject({
      status: "unavailable",
    });
  });

  it("*777 never settles: pending on placement and on every check", async () => {
    expect(await sandbox.placeTopup(topup("555777"))).toEqual({ status: "pending", supplierRef: "SANDBOX-ref-555777" });
    for (let i = 0; i < 3; i++) expect(await sandbox.checkTopup("ref-555777")).toMatchObject({ status: "pending" });
  });

  it("only the suffix counts: digits (or anything) may come before it", () => {
    expect(sandboxBehaviourFor("404").behaviour).toBe("player_not_found");
    expect(sandboxBehaviourFor("abc-404").behaviour).toBe("player_not_found");
    expect(sandboxBehaviourFor("4040").behaviour).toBe("success");
    expect(sandboxBehaviourFor("9990").behaviour).toBe("success");
    expect(sandboxBehaviourFor(undefined).behaviour).toBe("success");
  });

  it("a top-up without a userId is an ordinary success", async () => {
    expect(await sandbox.placeTopup(topup(undefined, "no-user"))).toMatchObject({ status: "success" });
  });
});

describe("sandbox supplier: *999, the first answer is lost but the supplier delivered", () => {
  it("answers unknown once, then checkTopup answers success and a re-placement answers success", async () => {
    const sandbox = createSandboxSupplier();
    expect(await sandbox.placeTopup(topup("1999", "lost-1"))).toMatchObject({ status: "unknown" });
    expect(await sandbox.checkTopup("lost-1")).toEqual({ status: "success", supplierRef: "SANDBOX-lost-1" });
    expect(await sandbox.placeTopup(topup("1999", "lost-1"))).toEqual({
      status: "success",
      supplierRef: "SANDBOX-lost-1",
    });
  });

  it("after a restart: not_found, then one more unknown placement, then success: it cannot loop", async () => {
    const beforeRestart = createSandboxSupplier();
    expect(await beforeRestart.placeTopup(topup("2999", "lost-2"))).toMatchObject({ status: "unknown" });

    const afterRestart = createSandboxSupplier();
    expect(await afterRestart.checkTopup("lost-2")).toEqual({ status: "not_found" });
    expect(await afterRestart.placeTopup(topup("2999", "lost-2"))).toMatchObject({ status: "unknown" });
    expect(await afterRestart.checkTopup("lost-2")).toMatchObject({ status: "success" });
    expect(await afterRestart.placeTopup(topup("2999", "lost-2"))).toMatchObject({ status: "success" });
  });

  it("two concurrent placements of one reference: one lost answer, one 'already delivered'", async () => {
    const sandbox = createSandboxSupplier({ latencyMs: 5 });
    const answers = await Promise.all([
      sandbox.placeTopup(topup("3999", "lost-3")),
      sandbox.placeTopup(topup("3999", "lost-3")),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual(["success", "unknown"]);
  });
});

describe("sandbox supplier: memory of references", () => {
  it("checkTopup of a reference it never saw answers not_found", async () => {
    expect(await createSandboxSupplier().checkTopup("never-placed")).toEqual({ status: "not_found" });
  });

  it("deduplicates by reference: a resubmission answers the first order's state, whatever it carries", async () => {
    const sandbox = createSandboxSupplier();
    expect(await sandbox.placeTopup(topup("12345", "dedupe"))).toMatchObject({ status: "success" });
    expect(await sandbox.placeTopup(topup("12404", "dedupe"))).toMatchObject({ status: "success" });
    expect(await sandbox.checkTopup("dedupe")).toMatchObject({ status: "success" });
  });

  it("is bounded: the oldest reference is forgotten first", async () => {
    const sandbox = createSandboxSupplier({ maxRememberedTopups: 2 });
    for (const reference of ["a", "b", "c"]) await sandbox.placeTopup(topup("12345", reference));
    expect(await sandbox.checkTopup("a")).toEqual({ status: "not_found" });
    expect(await sandbox.checkTopup("b")).toMatchObject({ status: "success" });
    expect(await sandbox.checkTopup("c")).toMatchObject({ status: "success" });
  });
});

describe("sandbox supplier: time", () => {
  it("*408 answers after the slow delay and then succeeds; other players are not slowed", async () => {
    const sandbox = createSandboxSupplier({ slowMs: 150 });
    const slowPlace = await timed(() => sandbox.placeTopup(topup("4408")));
    expect(slowPlace.value).toMatchObject({ status: "success" });
    expect(slowPlace.ms).toBeGreaterThanOrEqual(145);
    const slowVerify = await timed(() => sandbox.verifyPlayer({ game: "br", playerId: "4408" }));
    expect(slowVerify.value).toEqual({ status: "found", nickname: "Player-4408" });
    expect(slowVerify.ms).toBeGreaterThanOrEqual(145);
    const slowCheck = await timed(() => sandbox.checkTopup("ref-4408"));
    expect(slowCheck.value).toMatchObject({ status: "success" });
    expect(slowCheck.ms).toBeGreaterThanOrEqual(145);
    const fast = await timed(() => sandbox.placeTopup(topup("12345")));
    expect(fast.ms).toBeLessThan(100);
  });

  it("the base latency applies to every call", async () => {
    const sandbox = createSandboxSupplier({ latencyMs: 60 });
    const calls: Array<() => Promise<unknown>> = [
      () => sandbox.placeTopup(topup("12345")),
      () => sandbox.checkTopup("ref-12345"),
      () => sandbox.verifyPlayer({ game: "br", playerId: "12345" }),
      () => sandbox.redeemCode({ reference: "r", playerId: "12345", code: "ABCD-EFGH" }),
    ];
    for (const call of calls) expect((await timed(call)).ms).toBeGreaterThanOrEqual(55);
  });

  it("reads SANDBOX_LATENCY_MS and SANDBOX_SLOW_MS, with defaults 0 and 3000, and refuses nonsense", () => {
    expect(loadEnv({}).sandbox).toEqual({ latencyMs: 0, slowMs: 3000 });
    expect(loadEnv({ SANDBOX_LATENCY_MS: "25", SANDBOX_SLOW_MS: "400" }).sandbox).toEqual({
      latencyMs: 25,
      slowMs: 400,
    });
    expect(() => loadEnv({ SANDBOX_SLOW_MS: "-1" })).toThrow(ConfigError);
    expect(() => loadEnv({ SANDBOX_LATENCY_MS: "fast" })).toThrow(/SANDBOX_LATENCY_MS/);
  });
});

describe("sandbox supplier: redeem codes", () => {
  const sandbox = createSandboxSupplier();
  const redeem = (code: string, playerId = "12345") => sandbox.redeemCode({ reference: `r-${code}`, playerId, code });

  it.each([
    ["USED-AAAA-BBBB", { status: "code_used" }],
    ["used-aaaa-bbbb", { status: "code_used" }],
    ["BAD-AAAA-BBBB", { status: "invalid_code" }],
    ["GOOD-AAAA-BBBB", { status: "redeemed", nickname: "Player-2345" }],
    ["ABCD-USED-BAD0", { status: "redeemed", nickname: "Player-2345" }],
  ])("%s -> %o", async (code, expected) => expect(await redeem(code)).toEqual(expected));

  it("codes are never used up: the same good code redeems again", async () => {
    expect(await redeem("SAME-CODE")).toMatchObject({ status: "redeemed" });
    expect(await redeem("SAME-CODE")).toMatchObject({ status: "redeemed" });
  });

  it("the player is checked before the code", async () => {
    expect(await redeem("BAD-CODE", "1404")).toEqual({ status: "player_not_found" });
  });
});

describe("sandbox behaviour table", () => {
  it("every listed suffix selects its own behaviour, and one entry covers every other id", () => {
    const withSuffix = sandboxBehaviours.filter((entry) => entry.suffix !== null);
    expect(withSuffix.map((entry) => entry.suffix).sort()).toEqual(["404", "408", "500", "777", "999"]);
    for (const entry of sandboxBehaviours) {
      expect(sandboxBehaviourFor(`123${entry.suffix ?? "45"}`).behaviour).toBe(entry.behaviour);
      expect(entry.description.length).toBeGreaterThan(10);
    }
    expect(sandboxCodeRules.map((rule) => rule.prefix)).toEqual(["USED", "BAD", null]);
  });

  it("the documentation's sandbox table lists the same suffixes and code prefixes", () => {
    // The README's table, or wherever under docs/ it has moved.
    const root = path.resolve(import.meta.dirname, "../..");
    const pages = [path.join(root, "README.md"), ...markdownUnder(path.join(root, "docs"))];
    const table = pages.map((page) => readFileSync(page, "utf8")).find((text) => /^\| player id ends with/m.test(text));
    expect(table, "a page with the sandbox table").toBeDefined();
    for (const entry of sandboxBehaviours)
      if (entry.suffix) expect(table).toMatch(new RegExp(`^\\| \`${entry.suffix}\` \\|`, "m"));
    for (const rule of sandboxCodeRules) if (rule.prefix) expect(table).toContain(`\`${rule.prefix}\``);
  });
});
