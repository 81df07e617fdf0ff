// GET /orders/:orderId: one order of the caller's account by any reference form, ranked as
// parse-order-reference.ts says. Another account's order, by any form, is ORDER NOT FOUND: nothing
// reveals that it exists.
import { getPool } from "../db/pool";
import { ApiError } from "../http/errors";
import { orderRecordColumns, type OrderRecord } from "./order-record";
import {
  classifyOrderMatch,
  orderReferenceSql,
  type OrderReference,
  type OrderReferenceKind,
} from "./parse-order-reference";

// The statement's text is the same for every reference (only the values differ), so it is prepared once.
const PROTOTYPE = orderReferenceSql({ text: "", kinds: [] }, "o", 2);
const FIND_OWN_ORDER = `SELECT ${orderRecordColumns("o")} FROM orders o WHERE o.account_id = $1 AND ${PROTOTYPE.where} ORDER BY ${PROTOTYPE.rank}, o.id DESC LIMIT 1`;
// A public id ranks first, so when the text is one (its hash checks out) and the order is the
// caller's, one primary-key read answers: the usual case, kept as cheap as the floor's lookup.
const FIND_OWN_ORDER_BY_ID = `SELECT ${orderRecordColumns("o")} FROM orders o WHERE o.id = $1 AND o.account_id = $2`;

export async function findOwnOrder(
  accountId: number,
  reference: OrderReference | undefined,
): Promise<{ order: OrderRecord; matchedBy: OrderReferenceKind }> {
  if (reference?.publicId !== undefined) {
    const { rows } = await getPool().query<OrderRecord>({
      name: "order-by-public-id",
      text: FIND_OWN_ORDER_BY_ID,
      values: [reference.publicId, accountId],
    });
    if (rows[0]) return { order: rows[0], matchedBy: "publicId" };
  }
  if (reference) {
    const { values } = orderReferenceSql(reference, "o", 2);
    const { rows } = await getPool().query<OrderRecord>({
      name: "order-by-reference",
      text: FIND_OWN_ORDER,
      values: [accountId, ...values],
    });
    const order = rows[0];
    const matchedBy =
      order &&
      classifyOrderMatch(reference, { id: order.id, trxid: order.trxid, idempotencyKey: order.idempotencyKey });
    if (order && matchedBy) return { order, matchedBy };
  }
  throw new ApiError("ORDER_NOT_FOUND");
}
