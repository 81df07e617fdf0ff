// GET /orders/:orderId. Accepted forms, always scoped to the caller's account: the numeric id, the
// public id (SVCAPI-...), and the account's own trxid (the user-scoped form receipts show).
// Anything else, or another account's order, is ORDER NOT FOUND: nothing reveals that it exists.
import { getPool } from "../db/pool";
import { ApiError } from "../http/errors";
import type { OrderRow } from "./build-invoice";
import { parsePublicOrderId } from "./public-order-id";
import { NO_CONTROL_CHARACTERS } from "../api-schemas/fields";

export async function findOwnOrder(accountId: number, reference: string): Promise<OrderRow> {
  const text = reference.trim();
  if (!NO_CONTROL_CHARACTERS.test(text)) throw new ApiError("ORDER_NOT_FOUND");
  const pool = getPool();
  let rows: OrderRow[] = [];
  const publicId = text.toUpperCase().startsWith("SVCAPI-") ? parsePublicOrderId(text) : undefined;
  if (publicId !== undefined) {
    rows = (await pool.query<OrderRow>({ name: "order-by-id", text: `SELECT * FROM orders WHERE id = $1 AND account_id = $2`, values: [publicId, accountId] })).rows;
  } else if (/^\d{1,15}$/.test(text) && Number(text) <= 2_147_483_647) {
    rows = (await pool.query<OrderRow>({ name: "order-by-id", text: `SELECT * FROM orders WHERE id = $1 AND account_id = $2`, values: [Number(text), accountId] })).rows;
  }
  if (rows.length === 0 && text.length > 0 && text.length <= 128) {
    // A trxid (or idempotency key) of this account; newest first if several keys share a trxid.
    rows = (
      await pool.query<OrderRow>({
        name: "order-by-trxid",
        text: `SELECT * FROM orders WHERE account_id = $1 AND (trxid = $2 OR idempotency_key = $2) ORDER BY id DESC LIMIT 1`,
        values: [accountId, text],
      })
    ).rows;
  }
  if (rows.length === 0) throw new ApiError("ORDER_NOT_FOUND");
  return rows[0];
}
