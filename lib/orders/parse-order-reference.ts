// The one reading of an order reference, shared by GET /orders/:orderId and the dashboard's search.
// A reference can be a public id (SVCAPI-...), a client's trxid, a client's idempotency key, or the
// numeric order id ("123", or "#123" as support chats write it). One text can be several of these
// at once ("123" may be both an order id and a trxid), so the candidates are ranked, always in the
// same order (README: The API, "Order references"):
//
//   1. publicId:       the id inside a public id whose hash checks out
//   2. trxid:          the client's own id (the newest order, if several share it)
//   3. idempotencyKey: the client's idempotency key
//   4. id:             the numeric order id, which no API answer shows on its own
//
// A client's ids win over the numeric id because a client knows its trxids, while the numeric id
// only appears inside the public id. `by` restricts a lookup to one kind.
import { NO_CONTROL_CHARACTERS } from "../api-schemas/fields";
import { parsePublicOrderId } from "./public-order-id";

export const ORDER_REFERENCE_KINDS = ["publicId", "trxid", "idempotencyKey", "id"] as const;
export type OrderReferenceKind = (typeof ORDER_REFERENCE_KINDS)[number];

const MAX_ORDER_REFERENCE_LENGTH = 128;
const MAX_ORDER_ID = 2_147_483_647;

export interface OrderReference {
  /** The reference as compared with trxids and idempotency keys (surrounding spaces removed). */
  text: string;
  /** The kinds this reference can match, in precedence order. */
  kinds: OrderReferenceKind[];
  /** The order id inside a well-formed public id with a valid hash. */
  publicId?: number;
  /** The reference read as a numeric order id. */
  id?: number;
}

/** Undefined when the text cannot name any order (empty, too long, control characters, or not of kind `by`). */
export function parseOrderReference(raw: string, by?: OrderReferenceKind): OrderReference | undefined {
  const text = raw.trim();
  if (text === "" || text.length > MAX_ORDER_REFERENCE_LENGTH || !NO_CONTROL_CHARACTERS.test(text)) return undefined;
  const publicId = /^SVCAPI-/i.test(text) ? parsePublicOrderId(text) : undefined;
  const numeric = /^#?\d{1,10}$/.test(text) ? Number(text.replace("#", "")) : undefined;
  const id = numeric !== undefined && numeric >= 1 && numeric <= MAX_ORDER_ID ? numeric : undefined;
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

/** The reference naming exactly this order id (for re-reading an order already found). */
export function orderIdReference(id: number): OrderReference {
  return { text: String(id), kinds: ["id"], id };
}

/** The highest-ranked kind by which `order` matches `reference`; undefined when it does not match. */
export function classifyOrderMatch(
  reference: OrderReference,
  order: { id: number; trxid: string; idempotencyKey: string },
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
        return order.id === reference.id;
    }
  });
}

/** The value each kind of the reference compares with (null for a kind it cannot be), for a lookup's statement. */
export function orderReferenceValues(reference: OrderReference): Record<OrderReferenceKind, string | number | null> {
  return {
    publicId: reference.publicId ?? null,
    trxid: reference.kinds.includes("trxid") ? reference.text : null,
    idempotencyKey: reference.kinds.includes("idempotencyKey") ? reference.text : null,
    id: reference.id ?? null,
  };
}
