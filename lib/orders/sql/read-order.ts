// GET /orders/:orderId: one order of the caller's account by any reference form, ranked as
// parse-order-reference.ts says. Another account's order, by any form, is ORDER NOT FOUND: nothing
// reveals that it exists.
import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { ApiError } from "../../http/errors";
import type { OrderRecord } from "../order-record";
import {
  classifyOrderMatch,
  orderReferenceValues,
  type OrderReference,
  type OrderReferenceKind,
} from "../parse-order-reference";

export async function findOwnOrder(
  accountId: number,
  reference: OrderReference | undefined,
): Promise<{ order: OrderRecord; matchedBy: OrderReferenceKind }> {
  if (reference?.publicId !== undefined) {
    // A public id ranks first, so when the text is one (its hash checks out) and the order is the
    // caller's, one primary-key read answers: the usual case.
    const { rows } = await getPool().query<OrderRecord>(
      prepared(
        "order-by-public-id",
        sql`SELECT (order_record(o)).* FROM orders o WHERE o.id = ${reference.publicId} AND o.account_id = ${accountId}`,
      ),
    );
    if (rows[0]) return { order: rows[0], matchedBy: "publicId" };
  }
  if (reference) {
    // Every candidate, ranked in the order of ORDER_REFERENCE_KINDS, then newest first.
    const { publicId, trxid, idempotencyKey, numberedIds, numberedMiddles } = orderReferenceValues(reference);
    // An order number names the order whose stored public id carries it: one of the candidate ids,
    // with the middle that id's form of public id has.
    const { rows } = await getPool().query<OrderRecord>(
      prepared(
        "order-by-reference",
        sql`SELECT (order_record(o)).* FROM orders o
             WHERE o.account_id = ${accountId}
               AND (o.id = ${publicId}::int OR o.trxid = ${trxid}::text OR o.idempotency_key = ${idempotencyKey}::text
                    OR (o.id = ANY (${numberedIds}::int[])
                        AND split_part(o.public_id, '-', 3) = ANY (${numberedMiddles}::text[])))
             ORDER BY CASE WHEN o.id = ${publicId}::int THEN 0 WHEN o.trxid = ${trxid}::text THEN 1
                           WHEN o.idempotency_key = ${idempotencyKey}::text THEN 2 ELSE 3 END,
                      o.id DESC
             LIMIT 1`,
      ),
    );
    const order = rows[0];
    const matchedBy = order && classifyOrderMatch(reference, order);
    if (order && matchedBy) return { order, matchedBy };
  }
  throw new ApiError("ORDER_NOT_FOUND");
}
