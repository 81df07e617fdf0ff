// Finds orders from whatever a customer pastes into a support chat: the public order id
// (SVCAPI-..., any case), the numeric id ("123" or "#123"), their trxid or idempotency key, or the
// player id the top-up went to. Quotes, spaces and a trailing period from the paste are ignored.
import { getPool } from "../db/pool";
import { parsePublicOrderId } from "../orders/public-order-id";
import { ORDER_LIST_COLUMNS, type OrderListItem } from "./order-list-item";

export type OrderMatchKind = "public id" | "order id" | "trxid" | "idempotency key" | "player id";

export interface OrderSearchResult {
  /** The text actually searched for, after cleaning. */
  query: string;
  matches: (OrderListItem & { matchedBy: OrderMatchKind })[];
  /** More orders matched than were returned (a busy player id). */
  truncated: boolean;
}

const MAX_INT4 = 2_147_483_647;
const MAX_QUERY_LENGTH = 128;

export function cleanOrderQuery(raw: string): string {
  return raw
    .trim()
    .replace(/^["'`“”‘’<(\[]+|["'`“”‘’>)\].,;:]+$/g, "")
    .trim();
}

export async function searchOrders(raw: string, limit = 50): Promise<OrderSearchResult> {
  const query = cleanOrderQuery(raw);
  if (query === "" || query.length > MAX_QUERY_LENGTH) return { query, matches: [], truncated: false };

  // The numeric id hidden in a public id is trusted only when its hash checks out, so a mistyped
  // public id finds nothing rather than somebody else's order.
  const publicId = /^SVCAPI-/i.test(query) ? parsePublicOrderId(query) : undefined;
  const numeric = /^#?\d{1,10}$/.test(query) ? Number(query.replace("#", "")) : undefined;
  const orderId = publicId ?? (numeric !== undefined && numeric >= 1 && numeric <= MAX_INT4 ? numeric : null);
  // Both the cleaned text and the paste as it was (trimmed): a trxid may itself end in "." or ")".
  const texts = [...new Set([query.replace(/^#(?=\d+$)/, ""), raw.trim()])].filter((text) => text.length <= MAX_QUERY_LENGTH);

  const { rows } = await getPool().query<OrderListItem & { matchedBy: OrderMatchKind }>(
    `SELECT ${ORDER_LIST_COLUMNS},
            CASE WHEN o.id = $1 AND $3 THEN 'public id'
                 WHEN o.id = $1 THEN 'order id'
                 WHEN o.trxid = ANY($2) THEN 'trxid'
                 WHEN o.idempotency_key = ANY($2) THEN 'idempotency key'
                 ELSE 'player id' END AS "matchedBy"
       FROM orders o JOIN accounts a ON a.id = o.account_id
      WHERE o.id = $1 OR o.trxid = ANY($2) OR o.idempotency_key = ANY($2) OR o.user_id = ANY($2)
      ORDER BY (o.id = $1) DESC NULLS LAST, o.id DESC
      LIMIT $4`,
    [orderId, texts, publicId !== undefined, limit + 1],
  );
  return { query, matches: rows.slice(0, limit), truncated: rows.length > limit };
}
