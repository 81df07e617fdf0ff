// GET /history: the calling key's orders (README: The API), newest first. Scoped by account as well
// as key, like every lookup.
//
// Each order has its key's number key_seq (1..n without gaps, in placement order) and the key's row
// holds n (order_count), both written by the placing statement (lib/orders/place-order.ts). So one
// statement reads the exact total and the page from the same snapshot, and a page is a keyset range
// on the unique (api_key_id, key_seq) index: page p of size s is the s orders with
// key_seq <= n - (p - 1) * s, which costs the same at page 500 as at page 1 (no count(*), no OFFSET).
import { getPool } from "../db/pool";
import { orderRecordColumns, type OrderRecord } from "./order-record";

export interface KeyOrdersPage {
  /** All the key's orders. */
  total: number;
  orders: OrderRecord[];
}

// Named, so prepared once per connection: the plan is an index range on (api_key_id, key_seq) for
// any key and any page, so the generic plan PostgreSQL may settle on is the right one for every
// key, small or large (unlike the count(*) this replaces; tests/integration/history-keyset.test.ts
// checks the generic plan).
//
// The account check sits on the join, not inside the page's subquery: inside, a custom plan for an
// account with few orders read all of them through the (account_id, ...) indexes and sorted them,
// one heap page per order once they lie scattered among a big neighbour's (reseller B beside a
// million orders: 203 buffers against 22, and 0.7 ms of planning; bench/RESULTS.md, "2026-11-25,
// 11:20"). A key's orders are its account's, so the check drops nothing; it keeps every row
// answered here scoped to the caller's account all the same.
export const HISTORY_PAGE = `
  SELECT k.order_count AS "keyOrderCount", ${orderRecordColumns("o")}
    FROM api_keys k
    LEFT JOIN LATERAL (
      SELECT * FROM orders
       WHERE api_key_id = k.id AND key_seq <= k.order_count - $4::int
       ORDER BY key_seq DESC LIMIT $3
    ) o ON o.account_id = $1
   WHERE k.id = $2 AND k.account_id = $1
   ORDER BY o.key_seq DESC`;

/** `limit` of the key's orders, newest first, after skipping the newest `offset`; and the total. */
export async function listKeyOrders(
  scope: { accountId: number; keyId: number },
  limit: number,
  offset = 0,
): Promise<KeyOrdersPage> {
  const { rows } = await getPool().query<OrderRecord & { keyOrderCount: number }>({
    name: "history-page",
    text: HISTORY_PAGE,
    values: [scope.accountId, scope.keyId, limit, offset],
  });
  // One row even when the page is empty (the key's row, with null order columns).
  const total = rows[0]?.keyOrderCount ?? 0;
  const orders = rows
    .filter((row) => row.id !== null)
    .map(({ keyOrderCount: _count, ...order }) => order as OrderRecord);
  return { total, orders };
}
