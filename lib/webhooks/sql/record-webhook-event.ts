// The outbox: an event is written by the transaction of the state change it reports, with one
// delivery per subscribed endpoint, so the change and its notification commit together or not at
// all. record_webhook_event (prisma/functions/record_webhook_event.sql) numbers the event per account and
// writes the delivery rows, which are the queue: the worker's dispatcher (dispatch-webhooks.ts)
// claims due ones. An account with no endpoint pays for the counter and the event row.
import { randomBytes } from "node:crypto";
import { runSql, sql, type SqlTransaction } from "../../db/run-sql";
import { afterCommit } from "../../db/pool";
import type { WebhookEventType } from "../event-types";
import { wakeWebhookDispatchers } from "./dispatch-webhooks";
import { firstRow } from "../../db/first-row";

export interface RecordedWebhookEvent {
  id: string;
  sequence: number;
  deliveries: number;
}

/** A stable, unguessable event id; it is also the webhook-id header of every delivery of it. */
export function newEventId(): string {
  return `evt_${randomBytes(16).toString("base64url")}`;
}

/** A dispatcher in this process starts at once after the commit; others find the rows on their next poll. */
export function wakeDispatchersAfterCommit(client: SqlTransaction, deliveries: number): void {
  if (deliveries > 0) afterCommit(client, wakeWebhookDispatchers);
}

/** The same for a statement sent on its own (its own transaction, committed when it answered). */
export function wakeDispatchersNow(deliveries: number): void {
  if (deliveries > 0) wakeWebhookDispatchers();
}

export async function recordWebhookEvent(
  client: SqlTransaction,
  event: {
    accountId: number;
    type: WebhookEventType;
    data: unknown;
    /** Deliver to this endpoint only (endpoint.test); otherwise to every endpoint subscribed to the type. */
    endpointId?: number;
  },
): Promise<RecordedWebhookEvent> {
  const id = newEventId();
  const rows = await runSql<{ sequence: number; deliveries: number }>(
    client,
    sql`SELECT * FROM record_webhook_event(
          account_id => ${event.accountId}::int,
          public_id => ${id},
          type => ${event.type},
          data => ${JSON.stringify(event.data)}::json,
          endpoint_id => ${event.endpointId ?? null}::int)`,
    "record-webhook-event",
  );
  const { sequence, deliveries } = firstRow(rows, "record_webhook_event");
  wakeDispatchersAfterCommit(client, deliveries);
  return { id, sequence, deliveries };
}

/**
 * Several events of one account and type in one statement, numbered in the order given: a batch
 * (the catalog look's product.updated) costs one round trip, not one per event.
 */
export async function recordWebhookEvents(
  client: SqlTransaction,
  batch: { accountId: number; type: WebhookEventType; data: unknown[] },
): Promise<number> {
  if (batch.data.length === 0) return 0;
  const ids = batch.data.map(() => newEventId());
  const rows = await runSql<{ deliveries: number }>(
    client,
    sql`SELECT r.deliveries
          FROM unnest(${ids}::text[], ${batch.data.map((data) => JSON.stringify(data))}::json[])
               WITH ORDINALITY AS e(public_id, data, n)
          CROSS JOIN LATERAL record_webhook_event(
                account_id => ${batch.accountId}::int,
                public_id => e.public_id,
                type => ${batch.type},
                data => e.data,
                endpoint_id => NULL::int) r
         ORDER BY e.n`,
  );
  wakeDispatchersAfterCommit(
    client,
    rows.reduce((sum, row) => sum + row.deliveries, 0),
  );
  return rows.length;
}
