import { getPool } from "../db/pool";
import type { Queryable } from "./account-record";

export interface OrderLine {
  publicId: string;
  lineSlug: string;
  packName: string;
  quantity: number;
  amountCents: number;
  status: "pending" | "processing" | "completed" | "cancelled";
  error: string | null;
  refunded: boolean;
  createdAt: Date;
}

/** The account's newest orders (/orders), including those refused at placement. */
export async function listRecentOrders(accountId: number, limit = 10, db: Queryable = getPool()): Promise<OrderLine[]> {
  const { rows } = await db.query<OrderLine>(
    `SELECT public_id AS "publicId", line_slug AS "lineSlug", pack_name AS "packName", quantity,
            amount_cents AS "amountCents", status, error, refunded, created_at AS "createdAt"
       FROM orders WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows;
}
