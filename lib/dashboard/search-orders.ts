// Finds orders from whatever a customer pastes into a support chat: any order reference the API
// accepts (public id in any case, order number as "123" or "#123", trxid, idempotency key), read and
// ranked by the API's own parser (lib/orders/parse-order-reference.ts), the order id the dashboard
// shows, or the player id the top-up went to. Quotes, spaces and a trailing period from the paste
// are ignored.
import { getPrisma } from "../db/prisma";
import { ordersNumbered } from "../orders/public-order-id";
import {
  classifyOrderMatch,
  ORDER_REFERENCE_KINDS,
  parseOrderReference,
  type OrderReference,
  type OrderReferenceKind,
} from "../orders/parse-order-reference";
import { ORDER_LIST_SELECT, toOrderListItem, type OrderListItem } from "./order-list-item";

type OrderMatchKind = "public id" | "order number" | "order id" | "trxid" | "idempotency key" | "player id";

export interface OrderSearchResult {
  /** The text actually searched for, after cleaning. */
  query: string;
  matches: (OrderListItem & { matchedBy: OrderMatchKind })[];
  /** More orders matched than were returned (a busy player id). */
  truncated: boolean;
}

const MAX_QUERY_LENGTH = 128;

const MATCH_KIND_NAMES: Record<OrderReferenceKind, OrderMatchKind> = {
  publicId: "public id",
  trxid: "trxid",
  idempotencyKey: "idempotency key",
  id: "order number",
};
/** orders.id is an int column. */
const MAX_ORDER_ID = 2_147_483_647;

function cleanOrderQuery(raw: string): string {
  return raw
    .trim()
    .replace(/^["'`“”‘’<(\[]+|["'`“”‘’>)\].,;:]+$/g, "")
    .trim();
}

export async function searchOrders(raw: string, limit = 50): Promise<OrderSearchResult> {
  const query = cleanOrderQuery(raw);
  if (query === "" || query.length > MAX_QUERY_LENGTH) return { query, matches: [], truncated: false };

  // Both the cleaned text and the paste as it was (trimmed): a trxid may itself end in "." or ")".
  // "#123" is also looked up as the text "123", as support chats write a trxid of digits that way.
  const texts = [...new Set([query.replace(/^#(?=\d+$)/, ""), raw.trim()])].filter(
    (text) => text.length <= MAX_QUERY_LENGTH,
  );
  const references = texts
    .map((text) => parseOrderReference(text))
    .filter((reference): reference is OrderReference => reference !== undefined);
  // The dashboard's own order ids (what its tables show), beside the API's order numbers.
  const internalIds = references
    .map((reference) => reference.id)
    .filter((id): id is number => id !== undefined && id <= MAX_ORDER_ID);
  const ids = [
    ...new Set([
      ...internalIds,
      ...references.flatMap((reference) => [
        ...(reference.publicId === undefined ? [] : [reference.publicId]),
        ...(reference.id === undefined ? [] : ordersNumbered(reference.id).map(({ id }) => id)),
      ]),
    ]),
  ];
  const referenceTexts = references.map((reference) => reference.text);

  const prisma = getPrisma();
  const select = { ...ORDER_LIST_SELECT, idempotencyKey: true } as const;
  const namedByReference = {
    OR: [{ id: { in: ids } }, { trxid: { in: referenceTexts } }, { idempotencyKey: { in: referenceTexts } }],
  };
  const [byReference, byPlayer] = await Promise.all([
    prisma.order.findMany({
      select,
      where: namedByReference,
      orderBy: { id: "desc" },
      take: limit + 1,
    }),
    prisma.order.findMany({
      select,
      where: { userId: { in: texts }, NOT: namedByReference },
      orderBy: { id: "desc" },
      take: limit + 1,
    }),
  ]);

  // The API's ranking (public id, trxid, idempotency key, order number; newest first within a
  // kind), then the dashboard's order ids, then the player-id matches, which the API does not know.
  const ranked = byReference
    .flatMap((row) => {
      const kinds = references.map((reference) => classifyOrderMatch(reference, row));
      const rank = ORDER_REFERENCE_KINDS.findIndex((kind) => kinds.includes(kind));
      const kind = ORDER_REFERENCE_KINDS[rank];
      if (kind !== undefined) return [{ row, rank, matchedBy: MATCH_KIND_NAMES[kind] }];
      return internalIds.includes(row.id)
        ? [{ row, rank: ORDER_REFERENCE_KINDS.length, matchedBy: "order id" as const }]
        : [];
    })
    .sort((a, b) => a.rank - b.rank || b.row.id - a.row.id);
  const rows = [...ranked, ...byPlayer.map((row) => ({ row, matchedBy: "player id" as const }))];
  const matches = rows
    .slice(0, limit)
    .map(({ row: { idempotencyKey: _idempotencyKey, ...row }, matchedBy }) => ({ ...toOrderListItem(row), matchedBy }));
  return { query, matches, truncated: rows.length > limit || byReference.length > limit };
}
