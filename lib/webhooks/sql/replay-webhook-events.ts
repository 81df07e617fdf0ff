// Re-sends events the account already has: a sequence range or a list of event ids, to every
// enabled endpoint subscribed to each event's type (or to one endpoint). Each re-send is a new
// delivery with the event's own id as webhook-id, so a receiver that already has it dedupes it.
// An event still waiting for an endpoint is not queued for it again, and an account queues at most
// REPLAY_DELIVERIES_PER_HOUR replayed deliveries an hour (webhook_replays keeps the count); an
// admin's replay for the account is counted but not held to it.
import { getPrisma } from "../../db/prisma";
import { firstRow } from "../../db/first-row";
import { runSql, sql } from "../../db/run-sql";
import { recordAuditEntry } from "../../audit/sql/record-audit-entry";

const MAX_REPLAY_EVENTS = 1000;
const REPLAY_DELIVERIES_PER_HOUR = 10_000;
/** The first key of the advisory lock that makes one account's replays take turns. */
const REPLAY_LOCK = 7301;

export type ReplayResult =
  | { status: "queued"; events: number; deliveries: number }
  | { status: "endpoint_not_found" }
  | { status: "quota_exhausted"; retryAfterSeconds: number };

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
    // Concurrent replays of one account count the quota one after the other.
    await runSql(tx, sql`SELECT 1 AS locked FROM pg_advisory_xact_lock(${REPLAY_LOCK}::int, ${input.accountId}::int)`);
    // One statement: picking and fanning out a thousand events is one round trip; the new delivery
    // rows are the queue the worker's dispatcher claims from.
    const replayed = await runSql<{ events: number; deliveries: number; remaining: number; retryAfterSeconds: number }>(
      tx,
      sql`WITH quota AS (
            SELECT ${REPLAY_DELIVERIES_PER_HOUR}::int - coalesce(sum(deliveries), 0)::int AS remaining,
                   coalesce(ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now())), 1)::int
                     AS retry_after
              FROM webhook_replays
             WHERE account_id = ${input.accountId} AND created_at > now() - interval '1 hour'
          ), picked AS (
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
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries w
                                WHERE w.event_id = p.id AND w.endpoint_id = e.id AND w.status = 'pending')
             ORDER BY p.id, e.id
             LIMIT CASE WHEN ${input.actor ?? null}::text IS NULL THEN greatest((SELECT remaining FROM quota), 0) END
            RETURNING id
          ), counted AS (
            INSERT INTO webhook_replays (account_id, deliveries)
            SELECT ${input.accountId}, count(*) FROM delivery HAVING count(*) > 0
          )
          SELECT (SELECT count(*) FROM picked)::int AS events, (SELECT count(*) FROM delivery)::int AS deliveries,
                 quota.remaining, quota.retry_after AS "retryAfterSeconds"
            FROM quota`,
    ).then((rows) => firstRow(rows, "the replay"));
    const { events, deliveries } = replayed;
    if (!input.actor && replayed.remaining <= 0 && events > 0)
      return { status: "quota_exhausted" as const, retryAfterSeconds: Math.max(1, replayed.retryAfterSeconds) };
    if (input.actor) {
      const { accountId, after, through, eventIds, endpointId } = input;
      await recordAuditEntry(
        {
          actor: input.actor,
          action: "webhook.replay",
          targetType: "account",
          targetId: accountId,
          details: { after, through, eventIds, endpointId, events, deliveries },
        },
        tx,
      );
    }
    return { status: "queued" as const, events, deliveries };
  });
}
