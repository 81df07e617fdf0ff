// Webhook deliveries give way to orders only during a burst: orders waiting for a slot and finishing
// fast while the worker is short of CPU. Then one delivery per ten orders finished, a batch at a
// time; a trickle of orders, a busy process finishing none, or orders that never wait for a slot,
// hold nothing back.
import { describe, expect, it } from "vitest";
import { yieldToOrders } from "@/lib/webhooks/yield-to-orders";

// Long samples, so the test's own statements after one cannot start the next.
const SAMPLE_MS = 300;
const SLOTS = 10;

function busyFor(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gate(options: { batch: number; wake?: () => void }) {
  return yieldToOrders({
    burstOrdersPerSecond: 100,
    slots: SLOTS,
    sampleMs: SAMPLE_MS,
    maxCredit: 10,
    wake: options.wake ?? (() => undefined),
    batch: options.batch,
  });
}

/** Every slot taken: orders wait. */
function fillSlots(g: ReturnType<typeof gate>) {
  for (let i = 0; i < SLOTS; i++) g.orderStarted();
}

/** `count` orders finished, each slot taken again at once by the next waiting order. */
function finishWithOrdersWaiting(g: ReturnType<typeof gate>, count: number) {
  for (let i = 0; i < count; i++) {
    g.orderFinished();
    g.orderStarted();
  }
}

describe("yieldToOrders", () => {
  it("holds deliveries to one per ten orders finished while orders come in a burst and the process is busy", () => {
    let wakes = 0;
    const g = gate({ batch: 1, wake: () => wakes++ });
    fillSlots(g);
    // 60 orders in 300 ms: 200 a second.
    finishWithOrdersWaiting(g, 60);
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(6);
    g.took(6);
    expect(g.allowance()).toBe(0);
    finishWithOrdersWaiting(g, 9);
    expect(g.allowance()).toBe(0);
    expect(wakes).toBe(1);
    finishWithOrdersWaiting(g, 1);
    expect(wakes).toBe(2);
    expect(g.allowance()).toBe(1);
    // Credit saved up is capped at the dispatcher's slots.
    finishWithOrdersWaiting(g, 500);
    expect(g.allowance()).toBe(10);
  });

  it("lets held-back deliveries go a batch at a time", () => {
    let wakes = 0;
    const g = gate({ batch: 5, wake: () => wakes++ });
    fillSlots(g);
    finishWithOrdersWaiting(g, 49);
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(0);
    expect(wakes).toBe(0);
    finishWithOrdersWaiting(g, 1);
    expect(wakes).toBe(1);
    expect(g.allowance()).toBe(5);
  });

  it("does not hold deliveries back while the process is idle, even with orders finishing (a slow supplier)", async () => {
    const g = gate({ batch: 1 });
    fillSlots(g);
    finishWithOrdersWaiting(g, 60);
    await idleFor(2 * SAMPLE_MS);
    expect(g.allowance()).toBe(Infinity);
  });

  it("does not hold deliveries back while no order waits for a slot, however fast they finish and however busy the process", () => {
    const g = gate({ batch: 1 });
    // 60 orders in 300 ms, each finished before the next starts: a rate the slots keep up with.
    for (let i = 0; i < 60; i++) {
      g.orderStarted();
      g.orderFinished();
    }
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(Infinity);
  });

  it("does not hold deliveries back for a trickle of orders, however busy the process", () => {
    const g = gate({ batch: 1 });
    fillSlots(g);
    finishWithOrdersWaiting(g, 1);
    busyFor(SAMPLE_MS);
    expect(g.allowance()).toBe(Infinity);
  });
});
