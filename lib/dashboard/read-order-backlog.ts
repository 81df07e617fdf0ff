import { getPool } from "../db/pool";
import { ORDER_LIST_COLUMNS, type OrderListItem } from "./order-list-item";

export interface OrderBacklog {
  /** Flagged for an admin (needs_admin) and still open: nobody else will settle them. */
  awaitingAdmin: number;
  /** Open orders the worker is still working on (not flagged). */
  inFlight: number;
  /** The longest-waiting flagged orders, oldest first. */
  oldestAwaitingAdmin: OrderListItem[];
}

export async function readOrderBacklog(limit = 10): Promise<OrderBacklog> {
  const pool = getPool();
  // Both read the (status, needs_admin) index: only open orders are looked at.
  const [counts, oldest] = await Promise.all([
    pool.query<{ awaitingAdmin: number; inFlight: number }>(
      `SELECT count(*) FILTER (WHERE needs_admin)::int AS "awaitingAdmin", count(*) FILTER (WHERE NOT needs_admin)::int AS "inFlight"
         FROM orders WHERE status IN ('pending', 'processing')`,
    ),
    pool.query<OrderListItem>(
      `SELECT ${ORDER_LIST_COLUMNS} FROM orders o JOIN accounts a ON a.id = o.account_id
        WHERE o.status IN ('pending', 'processing') AND o.needs_admin ORDER BY o.id LIMIT $1`,
      [limit],
    ),
  ]);
  return { ...counts.rows[0], oldestAwaitingAdmin: oldest.rows };
}
