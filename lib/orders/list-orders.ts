// GET /history: the account's orders, newest first (by id, which is stable).
import { getPool } from "../db/pool";
import type { OrderRow } from "./build-invoice";

export async function listOwnOrders(accountId: number, limit: number, offset = 0): Promise<OrderRow[]> {
  const { rows } = await getPool().query<OrderRow>({
    name: "history-page",
    text: `SELECT * FROM orders WHERE account_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
    values: [accountId, limit, offset],
  });
  return rows;
}

export async function countOwnOrders(accountId: number): Promise<number> {
  const { rows } = await getPool().query<{ total: number }>({
    name: "history-count",
    text: `SELECT count(*)::int AS total FROM orders WHERE account_id = $1`,
    values: [accountId],
  });
  return rows[0].total;
}
