// The soak's schedule comes from its seed alone (tests/soak/plan.ts): the same seed replays the same
// operations and faults, another seed gives another run, and faults never overlap nor reach into
// the quiet tail in which every order must settle; a three-minute run strikes every kind of fault.
import { describe, expect, it } from "vitest";
import { sandboxBehaviourFor } from "@/lib/suppliers/sandbox-behaviours";
import { planSoak } from "../soak/plan";

describe("the soak's plan", () => {
  it("is the same for the same seed, and another for another seed", () => {
    const first = planSoak(42, 3);
    const again = planSoak(42, 3);
    expect(again).toEqual(first);
    expect(planSoak(43, 3).fingerprint).not.toBe(first.fingerprint);
  });

  it("mixes every kind of operation, and strikes faults one at a time before the quiet tail", () => {
    const plan = planSoak(7, 3);
    const kinds = new Set(plan.operations.map(({ operation }) => operation.kind));
    expect([...kinds].sort()).toEqual(
      [
        "balance",
        "bot-adjust",
        "burst",
        "cancel",
        "changed-duplicate",
        "duplicate",
        "events",
        "history",
        "lookup",
        "place",
        "redeem",
        "verify",
      ].sort(),
    );
    // Every kind of fault once before any comes again: three minutes strike each of them.
    expect(new Set(plan.faults.map((fault) => fault.kind)).size).toBe(10);
    for (const [i, fault] of plan.faults.entries()) {
      const next = plan.faults[i + 1];
      if (next) expect(fault.at + fault.durationMs).toBeLessThan(next.at);
    }
    expect(plan.quietFrom).toBeLessThanOrEqual(3 * 60_000 - 30_000);
    // Operations refer only to placements planned before them.
    const placed = new Set<number>();
    for (const { index, operation } of [...plan.operations].sort((a, b) => a.index - b.index)) {
      if ("of" in operation) expect(placed.has(operation.of)).toBe(true);
      if (operation.kind === "place") placed.add(index);
    }
  });

  it("never places a test order for a sandbox player whose top-up never settles", () => {
    // Every order must be terminal by the end of a run; a random id can end like a sandbox rule.
    for (let seed = 1; seed <= 200; seed++) {
      const players = planSoak(seed, 3).operations.flatMap(({ operation }) =>
        operation.kind === "place" && operation.mode === "test" && operation.userId ? [operation.userId] : [],
      );
      expect(players.filter((player) => sandboxBehaviourFor(player).behaviour === "never_settles")).toEqual([]);
    }
  });
});
