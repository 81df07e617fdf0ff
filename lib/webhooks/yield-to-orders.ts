// Orders come first in a worker process short of CPU. While orders kept nearly every slot taken
// (SLOTS_TAKEN of the slot time: orders wait for one) and finished at a burst's rate in the last
// moment, and the process was busy for more than BUSY_UTILISATION of it, webhook deliveries are held to one for every ORDERS_PER_DELIVERY_WHEN_BUSY orders finished,
// let go a batch at a time, so a burst of orders is fulfilled at full speed and its webhooks catch
// up as it drains. A trickle of orders, slots held by a slow supplier, or a steady rate the slots
// keep up with (no order waits, so held webhooks would never catch up) hold nothing back.
import { performance, type EventLoopUtilization } from "node:perf_hooks";

const ORDERS_PER_DELIVERY_WHEN_BUSY = 10;
/** The process counts as short of CPU above this share of busy time. */
const BUSY_UTILISATION = 0.3;
/** Orders count as waiting for a slot above this share of the slots' time taken. */
const SLOTS_TAKEN = 0.9;
/** How long a sample of the event loop's busy time and the orders' rate lasts, by default. */
const SAMPLE_MS = 100;

export interface DeliveryGate {
  /** How many deliveries may start now. */
  allowance(): number;
  /** `count` deliveries were started. */
  took(count: number): void;
}

export interface OrderPriority extends DeliveryGate {
  /** An order job was taken into a slot. */
  orderStarted(): void;
  /** An order job finished (completed, cancelled or left for later). */
  orderFinished(): void;
}

export function yieldToOrders(options: {
  /** Orders finished per second from which they count as a burst. */
  burstOrdersPerSecond: number;
  /** The worker's order slots: orders wait only while every one is taken. */
  slots: number;
  sampleMs?: number;
  /** Called when a held-back delivery may go. */
  wake: () => void;
  /** Most deliveries saved up for (the dispatcher's slots). */
  maxCredit: number;
  /** Deliveries let go at once while holding back, so that one claim serves several. */
  batch: number;
}): OrderPriority {
  // Orders finished and not yet spent on a delivery.
  let orders = 0;
  let sample: EventLoopUtilization = performance.eventLoopUtilization();
  let sampledAt = performance.now();
  let finished = 0;
  // Orders in the slots, and the slot time (slots × ms) they took in this sample: a time average,
  // as the job queue hands out jobs in batches that fill every slot for a moment at any rate.
  let inHand = 0;
  let slotMs = 0;
  let countedAt = sampledAt;
  const countSlotTime = () => {
    const now = performance.now();
    slotMs += inHand * (now - countedAt);
    countedAt = now;
  };
  let burst = false;
  const holding = () => {
    const elapsed = performance.now() - sampledAt;
    if (elapsed >= (options.sampleMs ?? SAMPLE_MS)) {
      const now = performance.eventLoopUtilization();
      const cpuShort = performance.eventLoopUtilization(now, sample).utilization > BUSY_UTILISATION;
      countSlotTime();
      const ordersWait = slotMs >= SLOTS_TAKEN * options.slots * elapsed;
      // Once in a burst, it lasts while orders still finish: a pause of the job queue's fetching
      // between two samples does not end it.
      const rate = (finished * 1000) / elapsed;
      burst = cpuShort && ordersWait && (rate >= options.burstOrdersPerSecond || (burst && finished > 0));
      sample = now;
      sampledAt = performance.now();
      finished = 0;
      slotMs = 0;
    }
    return burst;
  };
  return {
    allowance() {
      if (!holding()) return Infinity;
      const saved = Math.floor(orders / ORDERS_PER_DELIVERY_WHEN_BUSY);
      return saved >= Math.min(options.batch, options.maxCredit) ? saved : 0;
    },
    took(count) {
      orders = Math.max(0, orders - count * ORDERS_PER_DELIVERY_WHEN_BUSY);
    },
    orderStarted() {
      countSlotTime();
      inHand++;
    },
    orderFinished() {
      countSlotTime();
      inHand--;
      finished++;
      if (orders >= options.maxCredit * ORDERS_PER_DELIVERY_WHEN_BUSY) return;
      orders++;
      if (orders === Math.min(options.batch, options.maxCredit) * ORDERS_PER_DELIVERY_WHEN_BUSY) options.wake();
    },
  };
}
