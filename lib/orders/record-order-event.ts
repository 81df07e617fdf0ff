// The one writer of order_events: every status transition (placement, settlement, flagging, the
// worker's retries) records its time and reason here, inside the transaction that makes it.
// Raw SQL on purpose: its callers are the hot path's pg transactions (placement, settlement).
import type pg from "pg";
import type { OrderStatus } from "../generated/prisma/enums";

/** SQL expressions for an event's fields, and the row source (a CTE name) it is written for, if any. */
export interface OrderEventSql {
  orderId: string;
  from: string;
  to: string;
  reason: string;
  data: string;
  source?: string;
}

/** The event's INSERT: recordOrderEvent's statement, and a CTE of the placement's one statement. */
export function insertOrderEventSql(e: OrderEventSql): string {
  return `INSERT INTO order_events (order_id, from_status, to_status, reason, data)
    SELECT ${e.orderId}, ${e.from}, ${e.to}, ${e.reason}, ${e.data}${e.source ? ` FROM ${e.source}` : ""}`;
}

const RECORD_EVENT = insertOrderEventSql({
  orderId: "$1::int",
  from: `$2::"OrderStatus"`,
  to: `$3::"OrderStatus"`,
  reason: "$4::text",
  data: "$5::jsonb",
});

export async function recordOrderEvent(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  from: OrderStatus | null,
  to: OrderStatus,
  reason: string,
  data?: unknown,
): Promise<void> {
  await client.query(RECORD_EVENT, [orderId, from, to, reason, data === undefined ? null : JSON.stringify(data)]);
}
