// The one writer of order_events: every status transition (placement, settlement, flagging, the
// worker's retries) records its time and reason here, inside the transaction that makes it.
// Raw SQL on purpose: its callers are the hot path's pg transactions (placement, settlement).
import type pg from "pg";
import type { OrderStatus } from "../generated/prisma/enums";

export async function recordOrderEvent(
  client: Pick<pg.PoolClient, "query">,
  orderId: number,
  from: OrderStatus | null,
  to: OrderStatus,
  reason: string,
  data?: unknown,
): Promise<void> {
  await client.query(`INSERT INTO order_events (order_id, from_status, to_status, reason, data) VALUES ($1, $2, $3, $4, $5)`, [
    orderId,
    from,
    to,
    reason,
    data === undefined ? null : JSON.stringify(data),
  ]);
}
