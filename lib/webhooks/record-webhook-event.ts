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

export interface RecordedWebhookEvent {
  id: string;
  sequence: number;
  deliveries: number;
}

/** A stable, unguessable event id; it is also the webhook-id header of every delivery of it. */
export function newEventId(): string {
  return `evt_${randomBytes(16).toString("base64url")}`;
}

const RECORD_EVENT = `
  WITH seq AS (
    INSERT INTO event_sequences (account_id, last_sequence) VALUES ($1, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_sequence = event_sequences.last_sequence + 1
    RETURNING last_sequence
  ), event AS (
    INSERT INTO webhook_events (public_id, account_id, sequence, type, data)
    SELECT $2, $1, seq.last_sequence, $3, $4::json FROM seq
    RETURNING id, sequence
  ), delivery AS (
    INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
    SELECT event.id, e.id, now() FROM event, webhook_endpoints e
     WHERE e.account_id = $1 AND e.disabled_at IS NULL
       AND ($5::int IS NULL OR e.id = $5)
       AND ($5::int IS NOT NULL OR cardinality(e.event_types) = 0 OR $3 = ANY (e.event_types))
    RETURNING id
  )
  SELECT event.sequence::int AS sequence, (SELECT count(*) FROM delivery)::int AS deliveries FROM event`;

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
  const rows = await runSql<{ sequence: number; deliveries: number }>(client, RECORD_EVENT, [
    event.accountId,
    id,
    event.type,
    JSON.stringify(event.data),
    event.endpointId ?? null,
  ]);
  // A dispatcher in this process starts at once; others find the rows on their next poll.
  if (rows[0].deliveries > 0) afterCommit(client, wakeWebhookDispatchers);
  return { id, sequence: rows[0].sequence, deliveries: rows[0].deliveries };
}
