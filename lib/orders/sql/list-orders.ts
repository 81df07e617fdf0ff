// GET /history: the calling key's orders (README: The API), newest first. Scoped by account as well
// as key, like every lookup (a test key's orders are its test account's, the key its holder's).
//
// Each order has its key's number key_seq (1..n without gaps, in placement order) and the key's row
// holds n (order_count), both written by place_order (lib/orders/sql/place-order.ts calls it). So one
// statement reads the exact total and the page from the same snapshot, and a page is a keyset range
// on the unique (api_key_id, key_seq) index: page p of size s is the s orders with
// key_seq <= n - (p - 1) * s, which costs the same at page 500 as at page 1 (no count(*), no OFFSET).
import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import type { OrderRecord } from "../order-record";

export interface KeyOrdersPage {
  /** All the key's orders. */
  total: number;
  orders: OrderRecord[];
}

/** `limit` of the key's orders, newest first, after skipping the newest `offset`; and the total. */
export async function listKeyOrders(
  scope: { accountId: number; keyId: number },
  limit: number,
  offset = 0,
): Promise<KeyOrdersPage> {
  // Prepared once per connection: the plan is an index range on (api_key_id, key_seq) for any key
  // and any page, so the generic plan PostgreSQL may settle on is right for every key, small or
  // large (tests/integration/history-keyset.test.ts checks it). The account check sits on the join,
  // not inside the page's subquery: inside, a custom plan for an account with few orders could read
  // all of them through the (account_id, ...) indexes and sort them. A key's orders are its
  // account's, so the check drops nothing; it keeps every row answered scoped to the caller.
  const { rows } = await getPool().query<OrderRecord & { keyOrderCount: number }>(
    prepared(
      "history-page",
      sql`SELECT k.order_count AS "keyOrderCount", (order_record(page.o)).*
            FROM api_keys k
            LEFT JOIN LATERAL (
              SELECT o FROM orders o
               WHERE o.api_key_id = k.id AND o.key_seq <= k.order_count - ${offset}::int
               ORDER BY o.key_seq DESC LIMIT ${limit}
            ) page ON (page.o).account_id = ${scope.accountId}
           WHERE k.id = ${scope.keyId}
           ORDER BY (page.o).key_seq DESC`,
    ),
  );
  // One row even when the page is empty (the key's row, with null order columns).
  const total = rows[0]?.keyOrderCount ?? 0;
  const orders = rows
    .filter((row) => row.id !== null)
    .map(({ keyOrderCount: _count, ...order }) => order as OrderRecord);
  return { total, orders };
}
