// Webhook fixtures: an endpoint registered through the same lib function the bot uses, with the
// development switch on (the receiver is on 127.0.0.1), and events written through the outbox.
import { getPool, withTransaction } from "@/lib/db/pool";
import { sql as sqlText } from "@/lib/db/run-sql";
import { addWebhookEndpoint } from "@/lib/webhooks/add-webhook-endpoint";
import { systemResolver, type DestinationPolicy } from "@/lib/webhooks/check-destination";
import { recordWebhookEvent } from "@/lib/webhooks/sql/record-webhook-event";
import { attemptDelivery, type DeliveryOptions, type DeliveryResult } from "@/lib/webhooks/sql/deliver-webhook";
import type { WebhookDeliveryRecord } from "@/lib/webhooks/webhook-record";
import type { WebhookEventType } from "@/lib/webhooks/event-types";
import { sql, sqlRow } from "./db";

export const DEV_POLICY: DestinationPolicy = { allowPrivate: true, resolve: systemResolver };

export async function addEndpoint(accountId: number, url: string, eventTypes: string[] = []) {
  const result = await addWebhookEndpoint({ accountId, url, eventTypes, actor: "test", policy: DEV_POLICY });
  if (result.status !== "added") throw new Error(`endpoint not added: ${JSON.stringify(result)}`);
  return result;
}

export function recordEvent(
  accountId: number,
  type: WebhookEventType = "endpoint.test",
  data: unknown = { n: 1 },
  endpointId?: number,
) {
  return withTransaction((client) => recordWebhookEvent(client, { accountId, type, data, endpointId }));
}

export async function deliveriesOf(eventPublicId: string) {
  return sql(
    `SELECT d.* FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.public_id = $1 ORDER BY d.id`,
    [eventPublicId],
  );
}

/** How many of an endpoint's deliveries are recorded delivered. */
export async function deliveredCount(endpointId: number): Promise<number> {
  const row = await sqlRow<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'delivered'`,
    [endpointId],
  );
  return row.n;
}

/**
 * One attempt of one delivery, made at once with the `now` a test chooses (so the two-day schedule
 * is walked without waiting), through the attempt the dispatcher makes. No dispatcher may run
 * beside it: the attempt is not claimed.
 */
export async function deliverWebhook(deliveryId: number, options: DeliveryOptions = {}): Promise<DeliveryResult> {
  const db = options.db ?? getPool();
  const row = (
    await db.query<WebhookDeliveryRecord>(sqlText`SELECT * FROM webhook_delivery(delivery_id => ${deliveryId})`)
  ).rows[0];
  if (!row) return { outcome: "skipped", why: "no such delivery" };
  return attemptDelivery(row, options);
}
