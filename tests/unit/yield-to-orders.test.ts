// Webhook deliveries give way to orders only during a burst: orders finishing fast while the worker
// is short of CPU. Then one delivery per ten orders finished, a batch at a time; a trickle of orders,
// or a busy process finishing none, holds nothing back.
import { describe, expect, it } from "vitest";
import { yieldToOrders } from "@/lib/webhooks/yield-to-orders";

// Long samples, so the test's own statements after one cannot start the next.
const SAMPLE_MS = 300;

function busyFor(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gate(options: { batch: number; wake?: () => void }) {
  return yieldToOrders({
    burstOrdersPerSecond: 100,
    sampleMs: SAMPLE_MS,
    maxCredit: 10,
    wake: options.wake ?? (() => undefined),
    batch: options.batch,
  });
}

describe("yieldToOrders", () => {
  it("holds deliveries to one per ten orders finished while orders come in a burst and the process is busy", () => {
    let wakes = 0;
    const g = gate({ batch: 1, wake: () => wakes++ });
    // 60 orders in 300 ms: 200 a second.
    for (let i = 0; i < 60; i++) g.orderFinished();
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(6);
    g.took(6);
    expect(g.allowance()).toBe(0);
    for (let i = 0; i < 9; i++) g.orderFinished();
    expect(g.allowance()).toBe(0);
    expect(wakes).toBe(1);
    g.orderFinished();
    expect(wakes).toBe(2);
    expect(g.allowance()).toBe(1);
    // Credit saved up is capped at the dispatcher's slots.
    for (let i = 0; i < 500; i++) g.orderFinished();
    expect(g.allowance()).toBe(10);
  });

  it("lets held-back deliveries go a batch at a time", () => {
    let wakes = 0;
    const g = gate({ batch: 5, wake: () => wakes++ });
    for (let i = 0; i < 49; i++) g.orderFinished();
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(0);
    expect(wakes).toBe(0);
    g.orderFinished();
    expect(wakes).toBe(1);
    expect(g.allowance()).toBe(5);
  });

  it("does not hold deliveries back while the process is idle, even with orders finishing (a slow supplier)", async () => {
    const g = gate({ batch: 1 });
    for (let i = 0; i < 60; i++) g.orderFinished();
    await idleFor(2 * SAMPLE_MS);
    expect(g.allowance()).toBe(Infinity);
  });

  it("does not hold deliveries back for a trickle of orders, however busy the process", () => {
    const g = gate({ batch: 1 });
    g.orderFinished();
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(Infinity);
  });
});
