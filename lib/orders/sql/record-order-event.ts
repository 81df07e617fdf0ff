// order_events records every status transition (placement, settlement, flagging, the worker's
// retries) with its time and reason, inside the transaction that makes it. The placement and the
// settlement write theirs in their own statements (place_order, settle-order.ts); this is the
// statement of the other transitions.
import type pg from "pg";
import { sql } from "../../db/run-sql";
import type { OrderStatus } from "../../generated/prisma/enums";

export async function recordOrderEvent(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  from: OrderStatus | null,
  to: OrderStatus,
  reason: string,
  data?: unknown,
): Promise<void> {
  await client.query(
    sql`INSERT INTO order_events (order_id, from_status, to_status, reason, data)
        VALUES (${orderId}, ${from}, ${to}, ${reason}, ${data === undefined ? null : JSON.stringify(data)}::jsonb)`,
  );
}
