// The one reading of an order reference, shared by GET /orders/:orderId and the dashboard's search.
// A reference can be a public id (SVCAPI-...), a client's trxid, a client's idempotency key, or the
// order number ("1234567890", or "#1234567890" as support chats write it). One text can be several
// of these at once ("123" may be both an order number and a trxid), so the candidates are ranked,
// always in the same order (docs/api.md: Orders, order references):
//
//   1. publicId:       the id inside a public id whose hash checks out
//   2. trxid:          the client's own id (the newest order, if several share it)
//   3. idempotencyKey: the client's idempotency key
//   4. id:             the order number, the middle of the order's public id read as a base36
//                      number (lib/orders/public-order-id.ts), so volume stays hidden
//
// A client's ids win over the order number because a client chose them, while the number is read
// out of the public id. `by` restricts a lookup to one kind.
import { NO_CONTROL_CHARACTERS } from "../api-schemas/fields";
import { ordersNumbered, parsePublicOrderId, publicOrderNumber } from "./public-order-id";

export const ORDER_REFERENCE_KINDS = ["publicId", "trxid", "idempotencyKey", "id"] as const;
export type OrderReferenceKind = (typeof ORDER_REFERENCE_KINDS)[number];

const MAX_ORDER_REFERENCE_LENGTH = 128;

export interface OrderReference {
  /** The reference as compared with trxids and idempotency keys (surrounding spaces removed). */
  text: string;
  /** The kinds this reference can match, in precedence order. */
  kinds: OrderReferenceKind[];
  /** The order id inside a well-formed public id with a valid hash. */
  publicId?: number;
  /** The reference read as an order number (the number inside a public id), as written. */
  id?: number;
}

/** Undefined when the text cannot name any order (empty, too long, control characters, or not of kind `by`). */
export function parseOrderReference(raw: string, by?: OrderReferenceKind): OrderReference | undefined {
  const text = raw.trim();
  if (text === "" || text.length > MAX_ORDER_REFERENCE_LENGTH || !NO_CONTROL_CHARACTERS.test(text)) return undefined;
  const publicId = /^SVCAPI-/i.test(text) ? parsePublicOrderId(text) : undefined;
  const numeric = /^#?\d{1,13}$/.test(text) ? Number(text.replace("#", "")) : undefined;
  const id = numeric !== undefined && ordersNumbered(numeric).length > 0 ? numeric : undefined;
  const possible: Record<OrderReferenceKind, boolean> = {
    publicId: publicId !== undefined,
    trxid: true,
    idempotencyKey: true,
    id: id !== undefined,
  };
  const kinds = ORDER_REFERENCE_KINDS.filter((kind) => possible[kind] && (by === undefined || kind === by));
  if (kinds.length === 0) return undefined;
  return {
    text,
    kinds,
    ...(kinds.includes("publicId") ? { publicId } : {}),
    ...(kinds.includes("id") ? { id } : {}),
  };
}

/** The order id an already-found order is re-read by (the route's wait loop). */
export function orderIdReference(order: { id: number; publicId: string }): OrderReference {
  return { text: order.publicId, kinds: ["publicId"], publicId: order.id };
}

/** The highest-ranked kind by which `order` matches `reference`; undefined when it does not match. */
export function classifyOrderMatch(
  reference: OrderReference,
  order: { id: number; publicId: string; trxid: string; idempotencyKey: string },
): OrderReferenceKind | undefined {
  return reference.kinds.find((kind) => {
    switch (kind) {
      case "publicId":
        return order.id === reference.publicId;
      case "trxid":
        return order.trxid === reference.text;
      case "idempotencyKey":
        return order.idempotencyKey === reference.text;
      case "id":
        return reference.id !== undefined && publicOrderNumber(order.publicId) === reference.id;
    }
  });
}

/**
 * The values each kind of the reference compares with (null for a kind it cannot be), for a lookup's
 * statement: the order number as the ids it can name and the public-id middles that go with them.
 */
export function orderReferenceValues(reference: OrderReference): {
  publicId: number | null;
  trxid: string | null;
  idempotencyKey: string | null;
  numberedIds: number[] | null;
  numberedMiddles: string[] | null;
} {
  const numbered = reference.id === undefined ? undefined : ordersNumbered(reference.id);
  return {
    publicId: reference.publicId ?? null,
    trxid: reference.kinds.includes("trxid") ? reference.text : null,
    idempotencyKey: reference.kinds.includes("idempotencyKey") ? reference.text : null,
    numberedIds: numbered?.map(({ id }) => id) ?? null,
    numberedMiddles: numbered?.map(({ middle }) => middle) ?? null,
  };
}
