import { getPool } from "../../db/pool";
import { WEBHOOK_EVENT_RECORD_COLUMNS, type WebhookEventRecord } from "../webhook-record";

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
    `SELECT ${WEBHOOK_EVENT_RECORD_COLUMNS} FROM webhook_events
      WHERE account_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
    [accountId, after, limit + 1],
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
