import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";

/** A price above this is a typo, not a pack: $100,000.00. */
export const MAX_PRODUCT_PRICE_CENTS = 10_000_000;

export type SetProductPriceResult =
  | { status: "updated" | "unchanged"; catalogId: string; fromCents: number; toCents: number }
  | { status: "not_found" }
  | { status: "invalid_price" };

/**
 * Changes a pack's price for future orders. Orders keep the price they were placed at
 * (orders.unit_price_cents and amount_cents are a snapshot), so nothing already charged moves.
 */
export async function setProductPrice(input: { productId: number; priceCents: number; actor: string }): Promise<SetProductPriceResult> {
  if (!Number.isSafeInteger(input.priceCents) || input.priceCents <= 0 || input.priceCents > MAX_PRODUCT_PRICE_CENTS) {
    return { status: "invalid_price" };
  }
  return withTransaction(async (client) => {
    const before = await client.query<{ priceCents: number; catalogId: string }>(
      `SELECT price_cents AS "priceCents", catalog_id AS "catalogId" FROM products WHERE id = $1 FOR UPDATE`,
      [input.productId],
    );
    if (before.rowCount === 0) return { status: "not_found" as const };
    const { priceCents: fromCents, catalogId } = before.rows[0];
    const changed = fromCents !== input.priceCents;
    if (changed) {
      await client.query(`UPDATE products SET price_cents = $2, updated_at = now() WHERE id = $1`, [input.productId, input.priceCents]);
    }
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "product.price",
        targetType: "product",
        targetId: input.productId,
        details: { catalogId, fromCents, toCents: input.priceCents },
      },
      client,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), catalogId, fromCents, toCents: input.priceCents };
  });
}
