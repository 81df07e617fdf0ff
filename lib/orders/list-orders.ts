// GET /history: the calling key's orders (README: The API), newest first by id, which is stable.
// Scoped by account as well as key, like every lookup.
import { getPool } from "../db/pool";
import { orderRecordColumns, type OrderRecord } from "./order-record";

export async function listKeyOrders(scope: { accountId: number; keyId: number }, limit: number, offset = 0): Promise<OrderRecord[]> {
  const { rows } = await getPool().query<OrderRecord>({
    name: "history-page",
    text: `SELECT ${orderRecordColumns("o")} FROM orders o WHERE o.account_id = $1 AND o.api_key_id = $2 ORDER BY o.id DESC LIMIT $3 OFFSET $4`,
    values: [scope.accountId, scope.keyId, limit, offset],
  });
  return rows;
}

// Unnamed, so planned for each key's own size: as a named statement PostgreSQL may switch to one
// generic plan, which with a million-order reseller in the table is a scan of every order for every
// key (bench/RESULTS.md, "scale, before fixes": a 200-order key's count took 150-300 ms instead of
// 0.06 ms).
export async function countKeyOrders(scope: { accountId: number; keyId: number }): Promise<number> {
  const { rows } = await getPool().query<{ total: number }>({
    text: `SELECT count(*)::int AS total FROM orders WHERE account_id = $1 AND api_key_id = $2`,
    values: [scope.accountId, scope.keyId],
  });
  return rows[0].total;
}
