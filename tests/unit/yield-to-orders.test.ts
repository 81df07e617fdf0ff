// Webhook deliveries give way to orders only when the worker is short of CPU with every order slot
// taken: then one delivery per ten orders finished; with slots held by a slow supplier (the process
// idle) or free slots, deliveries are not held back.
import { describe, expect, it } from "vitest";
import { yieldToOrders } from "@/lib/webhooks/yield-to-orders";

function busyFor(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("yieldToOrders", () => {
  it("holds deliveries to one per ten orders finished while the process is busy and every order slot taken", () => {
    let wakes = 0;
    const gate = yieldToOrders({ ordersBusy: () => true, wake: () => wakes++, maxCredit: 10, batch: 1 });
    busyFor(200);
    expect(gate.allowance()).toBe(0);
    for (let i = 0; i < 9; i++) gate.orderFinished();
    expect(gate.allowance()).toBe(0);
    expect(wakes).toBe(0);
    gate.orderFinished();
    expect(wakes).toBe(1);
    expect(gate.allowance()).toBe(1);
    gate.took(1);
    expect(gate.allowance()).toBe(0);
    // Credit saved up is capped at the dispatcher's slots.
    for (let i = 0; i < 500; i++) gate.orderFinished();
    expect(gate.allowance()).toBe(10);
  });

  it("lets held-back deliveries go a batch at a time", () => {
    let wakes = 0;
    const gate = yieldToOrders({ ordersBusy: () => true, wake: () => wakes++, maxCredit: 10, batch: 5 });
    busyFor(200);
    for (let i = 0; i < 49; i++) gate.orderFinished();
    expect(gate.allowance()).toBe(0);
    expect(wakes).toBe(0);
    gate.orderFinished();
    expect(wakes).toBe(1);
    expect(gate.allowance()).toBe(5);
  });

  it("does not hold deliveries back while the process is idle, even with every order slot taken (a slow supplier)", async () => {
    const gate = yieldToOrders({ ordersBusy: () => true, wake: () => undefined, maxCredit: 10, batch: 1 });
    // Long enough that a garbage collection or the runner's own work cannot make it half busy.
    await idleFor(500);
    expect(gate.allowance()).toBe(Infinity);
  });

  it("does not hold deliveries back while an order slot is free", () => {
    const gate = yieldToOrders({ ordersBusy: () => false, wake: () => undefined, maxCredit: 10, batch: 1 });
    busyFor(200);
    expect(gate.allowance()).toBe(Infinity);
  });
});
