// Orders come first in a worker process short of CPU. While orders finished at a burst's rate in
// the last moment and the process was busy for more than BUSY_UTILISATION of it, webhook
// deliveries are held to one for every ORDERS_PER_DELIVERY_WHEN_BUSY orders finished, let go a
// batch at a time, so a burst of orders is fulfilled at full speed and its webhooks catch up as it
// drains. A trickle of orders, or slots held by a slow supplier, hold nothing back.
import { performance, type EventLoopUtilization } from "node:perf_hooks";

const ORDERS_PER_DELIVERY_WHEN_BUSY = 10;
/** The process counts as short of CPU above this share of busy time. */
const BUSY_UTILISATION = 0.3;
/** How long a sample of the event loop's busy time and the orders' rate lasts, by default. */
const SAMPLE_MS = 100;

export interface DeliveryGate {
  /** How many deliveries may start now. */
  allowance(): number;
  /** `count` deliveries were started. */
  took(count: number): void;
}

export interface OrderPriority extends DeliveryGate {
  /** An order job finished (completed, cancelled or left for later). */
  orderFinished(): void;
}

export function yieldToOrders(options: {
  /** Orders finished per second from which they count as a burst. */
  burstOrdersPerSecond: number;
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
  let burst = false;
  const holding = () => {
    const elapsed = performance.now() - sampledAt;
    if (elapsed >= (options.sampleMs ?? SAMPLE_MS)) {
      const now = performance.eventLoopUtilization();
      const cpuShort = performance.eventLoopUtilization(now, sample).utilization > BUSY_UTILISATION;
      // Once in a burst, it lasts while orders still finish: a pause of the job queue's fetching
      // between two samples does not end it.
      const rate = (finished * 1000) / elapsed;
      burst = cpuShort && (rate >= options.burstOrdersPerSecond || (burst && finished > 0));
      sample = now;
      sampledAt = performance.now();
      finished = 0;
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
    orderFinished() {
      finished++;
      if (orders >= options.maxCredit * ORDERS_PER_DELIVERY_WHEN_BUSY) return;
      orders++;
      if (orders === Math.min(options.batch, options.maxCredit) * ORDERS_PER_DELIVERY_WHEN_BUSY) options.wake();
    },
  };
}
