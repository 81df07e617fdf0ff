// Re-sends events the account already has: a sequence range or a list of event ids, to every
// enabled endpoint subscribed to each event's type (or to one endpoint). Each re-send is a new
// delivery with the event's own id as webhook-id, so a receiver that already has it dedupes it.
import { getPrisma } from "../../db/prisma";
import { firstRow } from "../../db/first-row";
import { runSql, sql } from "../../db/run-sql";
import { recordAuditEntry } from "../../audit/sql/record-audit-entry";

export const MAX_REPLAY_EVENTS = 1000;

export type ReplayResult = { status: "queued"; events: number; deliveries: number } | { status: "endpoint_not_found" };

export async function replayWebhookEvents(input: {
  accountId: number;
  /** Sequence numbers after `after`, up to and including `through`. */
  after?: number;
  through?: number;
  eventIds?: string[];
  endpointId?: number;
  /** An admin replaying for the account: audited. */
  actor?: string;
}): Promise<ReplayResult> {
  return getPrisma().$transaction(async (tx) => {
    if (input.endpointId !== undefined) {
      const found = await tx.webhookEndpoint.count({ where: { id: input.endpointId, accountId: input.accountId } });
      if (!found) return { status: "endpoint_not_found" as const };
    }
    // One statement: picking and fanning out a thousand events is one round trip; the new delivery
    // rows are the queue the worker's dispatcher claims from.
    const counts = await runSql<{ events: number; deliveries: number }>(
      tx,
      sql`WITH picked AS (
            SELECT id, type FROM webhook_events
             WHERE account_id = ${input.accountId}
               AND (${input.after ?? null}::bigint IS NULL OR sequence > ${input.after ?? null}::bigint)
               AND (${input.through ?? null}::bigint IS NULL OR sequence <= ${input.through ?? null}::bigint)
               AND (${input.eventIds ?? null}::text[] IS NULL OR public_id = ANY (${input.eventIds ?? null}::text[]))
             ORDER BY sequence LIMIT ${MAX_REPLAY_EVENTS}
          ), delivery AS (
            INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
            SELECT p.id, e.id, now() FROM picked p
              JOIN webhook_endpoints e ON e.account_id = ${input.accountId} AND e.disabled_at IS NULL
             WHERE (${input.endpointId ?? null}::int IS NULL OR e.id = ${input.endpointId ?? null}::int)
               AND CASE WHEN p.type = 'endpoint.test' THEN ${input.endpointId ?? null}::int IS NOT NULL
                        ELSE cardinality(e.event_types) = 0 OR p.type = ANY (e.event_types) END
             ORDER BY p.id, e.id
            RETURNING id
          )
          SELECT (SELECT count(*) FROM picked)::int AS events, (SELECT count(*) FROM delivery)::int AS deliveries`,
    ).then((rows) => firstRow(rows, "the replay"));
    if (input.actor) {
      const { accountId, after, through, eventIds, endpointId } = input;
      await recordAuditEntry(
        {
          actor: input.actor,
          action: "webhook.replay",
          targetType: "account",
          targetId: accountId,
          details: { after, through, eventIds, endpointId, ...counts },
        },
        tx,
      );
    }
    return { status: "queued" as const, ...counts };
  });
}
