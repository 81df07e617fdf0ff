// The outbox: an event is written by the transaction of the state change it reports, with one
// delivery per subscribed endpoint, so the change and its notification commit together or not at
// all. The delivery rows are the queue: the worker's dispatcher (dispatch-webhooks.ts) claims due
// ones, so the settling transaction adds no graphile-worker job (add_job cost that transaction about
// half a millisecond of PostgreSQL time and a NOTIFY per delivery; bench/RESULTS.md, webhooks).
//
// The per-account sequence number comes from the account's event_sequences row, bumped in the
// same statement: the row lock makes a second transaction of the same account wait until the
// first commits, so sequence numbers commit in order and without gaps (a rolled-back number is
// handed out again). That row is not the accounts row, so it does not queue behind wallet debits.
// Everything is one round trip; an account with no endpoint pays for the counter and the row.
import { randomBytes } from "node:crypto";
import { runSql, type SqlTransaction } from "../db/run-sql";
import { afterCommit } from "../db/pool";
import type { WebhookEventType } from "./event-types";
import { wakeWebhookDispatchers } from "./dispatch-webhooks";
import { firstRow } from "../db/first-row";

export interface RecordedWebhookEvent {
  id: string;
  sequence: number;
  deliveries: number;
}

/** A stable, unguessable event id; it is also the webhook-id header of every delivery of it. */
export function newEventId(): string {
  return `evt_${randomBytes(16).toString("base64url")}`;
}

/** SQL expressions (parameters, literals or a source's columns) for the fields of one event. */
export interface WebhookEventSql {
  accountId: string;
  /** The event's public id (newEventId()). */
  publicId: string;
  type: string;
  /** A json value. */
  data: string;
  /** An int expression: deliver to this endpoint only when not null. */
  endpointId: string;
  /** A row source (a CTE name) the event is recorded for, once per row: none, no event. Without it, one event. */
  source?: string;
}

/**
 * The outbox write as CTEs (webhook_seq, webhook_event, webhook_delivery), for a statement that
 * records one event along with its state change: this function's own statement, and the money
 * move's balance.low (lib/webhooks/record-balance-low.ts). The statement selects
 * WEBHOOK_DELIVERIES and hands it to wakeDispatchersAfterCommit.
 */
export function webhookEventCtes(e: WebhookEventSql): string {
  const from = e.source ? ` FROM ${e.source}` : "";
  return `webhook_seq AS (
    INSERT INTO event_sequences (account_id, last_sequence) SELECT ${e.accountId}, 1${from}
    ON CONFLICT (account_id) DO UPDATE SET last_sequence = event_sequences.last_sequence + 1
    RETURNING last_sequence
  ), webhook_event AS (
    INSERT INTO webhook_events (public_id, account_id, sequence, type, data)
    SELECT ${e.publicId}, ${e.accountId}, webhook_seq.last_sequence, ${e.type}, ${e.data} FROM webhook_seq${e.source ? `, ${e.source}` : ""}
    RETURNING id, sequence
  ), webhook_delivery AS (
    INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
    SELECT webhook_event.id, e.id, now() FROM webhook_event, webhook_endpoints e
     WHERE e.account_id = ${e.accountId} AND e.disabled_at IS NULL
       AND (${e.endpointId} IS NULL OR e.id = ${e.endpointId})
       AND (${e.endpointId} IS NOT NULL OR cardinality(e.event_types) = 0 OR ${e.type} = ANY (e.event_types))
    RETURNING id
  )`;
}

/** The number of deliveries webhookEventCtes wrote: select it for wakeDispatchersAfterCommit. */
export const WEBHOOK_DELIVERIES = `(SELECT count(*) FROM webhook_delivery)::int`;

/** A dispatcher in this process starts at once after the commit; others find the rows on their next poll. */
export function wakeDispatchersAfterCommit(client: SqlTransaction, deliveries: number): void {
  if (deliveries > 0) afterCommit(client, wakeWebhookDispatchers);
}

/** The same for a statement sent on its own (its own transaction, committed when it answered). */
export function wakeDispatchersNow(deliveries: number): void {
  if (deliveries > 0) wakeWebhookDispatchers();
}

const RECORD_EVENT = `
  WITH ${webhookEventCtes({ accountId: "$1::int", publicId: "$2::text", type: "$3::text", data: "$4::json", endpointId: "$5::int" })}
  SELECT webhook_event.sequence::int AS sequence, ${WEBHOOK_DELIVERIES} AS deliveries FROM webhook_event`;

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
    { name: "record-webhook-event", text: RECORD_EVENT },
    [event.accountId, id, event.type, JSON.stringify(event.data), event.endpointId ?? null],
  );
  const { sequence, deliveries } = firstRow(rows, "record-webhook-event");
  wakeDispatchersAfterCommit(client, deliveries);
  return { id, sequence, deliveries };
}
