// The worker's webhook deliveries get slots of their own, so a receiver that holds a request for
// its 15 s does not take a slot an order is waiting for, and a pool of their own with
// synchronous_commit off (lib/webhooks/sql/dispatch-webhooks.ts says why that is safe).
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Env } from "../../config/env";
import { startWebhookDispatcher } from "../../webhooks/sql/dispatch-webhooks";
import { webhookPolicyFromEnv } from "../../webhooks/check-destination";
import type { DeliveryGate } from "../../webhooks/yield-to-orders";
import type { LivenessLocks } from "./hold-liveness-locks";

export interface WebhookDeliveries {
  /** Stops claiming, waits for the attempts in flight and closes the pool. */
  stop(): Promise<void>;
}

/** Undefined when `concurrency` is 0: this worker delivers none. */
export async function startWebhookDeliveries(options: {
  connectionString: string;
  config: Env;
  /** Deliveries at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** How often an idle dispatcher looks for deliveries (WEBHOOK_POLL_MS); the dispatcher's default unless given. */
  pollIntervalMs?: number;
  /** Holds deliveries back while orders need the process (yield-to-orders.ts). */
  gate: DeliveryGate;
  liveness: Pick<LivenessLocks, "holdId">;
  log: (line: string) => void;
}): Promise<WebhookDeliveries | undefined> {
  const { concurrency, log } = options;
  if (concurrency <= 0) return undefined;
  const dispatchPool = new pg.Pool({
    connectionString: options.connectionString,
    max: Math.min(concurrency, 4),
    options: "-c synchronous_commit=off",
  });
  dispatchPool.on("error", (error) => log(`webhook pool error: ${error.message}`));
  dispatchPool.on("connect", (client) =>
    client.on("error", (error) => log(`webhook pool client error: ${error.message}`)),
  );
  const dispatcherId = `webhooks-${randomUUID()}`;
  // Held before the first claim, so the sweep never takes a live dispatcher for a dead one.
  await options.liveness.holdId(dispatcherId);
  const dispatcher = startWebhookDispatcher({
    db: dispatchPool,
    id: dispatcherId,
    concurrency,
    pollIntervalMs: options.pollIntervalMs,
    caps: options.config.worker.webhookCaps,
    gate: options.gate,
    delivery: { policy: webhookPolicyFromEnv(undefined, options.config) },
    log: (line) => log(`webhooks: ${line}`),
  });
  return {
    async stop() {
      await dispatcher.stop();
      await dispatchPool.end();
    },
  };
}
