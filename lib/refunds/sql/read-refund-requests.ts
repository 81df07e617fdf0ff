// The refund requests of some orders, for their invoices: one query for a page of orders.
import type pg from "pg";
import { sql } from "../../db/run-sql";
import type { RefundRequestRecord } from "../refund-request-record";

export async function readRefundRequests(
  client: Pick<pg.PoolClient, "query">,
  orderIds: number[],
): Promise<Map<number, RefundRequestRecord>> {
  if (!orderIds.length) return new Map();
  const { rows } = await client.query<RefundRequestRecord>(
    sql`SELECT id, order_id AS "orderId", reason, status, refund_cents AS "refundCents",
               decision_note AS "decisionNote", decided_at AS "decidedAt", created_at AS "createdAt"
          FROM refund_requests WHERE order_id = ANY(${orderIds})`,
  );
  return new Map(rows.map((row) => [row.orderId, row]));
}
