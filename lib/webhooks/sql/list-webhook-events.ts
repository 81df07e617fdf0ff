import { getPool } from "../../db/pool";
import type { WebhookEventRecord } from "../webhook-record";
import { sql } from "../../db/run-sql";

export interface WebhookEventView {
  id: string;
  sequence: number;
  type: string;
  timestamp: string;
  data: unknown;
}

/**
 * The account's events after a sequence number, in order. Sequence numbers commit in order and
 * without gaps (record-webhook-event.ts), so a client that pages with the last sequence it saw
 * misses nothing.
 */
export async function listWebhookEvents(
  accountId: number,
  after: number,
  limit: number,
): Promise<{ events: WebhookEventView[]; hasMore: boolean }> {
  const { rows } = await getPool().query<WebhookEventRecord>(
    sql`SELECT public_id AS "publicId", sequence, type, data, created_at AS "createdAt" FROM webhook_events
         WHERE account_id = ${accountId} AND sequence > ${after} ORDER BY sequence LIMIT ${limit + 1}`,
  );
  const events = rows.slice(0, limit).map((row) => ({
    id: row.publicId,
    sequence: row.sequence,
    type: row.type,
    timestamp: row.createdAt.toISOString(),
    data: row.data,
  }));
  return { events, hasMore: rows.length > limit };
}
