import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { numberFromDb } from "../db/number-from-db";
import { expectedVersion, nextVersion, staleEditMessage } from "../db/edit-version";

/** A price above this is a typo, not a pack: $100,000.00. */
export const MAX_PRODUCT_PRICE_CENTS = 10_000_000;

export type SetProductPriceResult =
  | { status: "updated" | "unchanged"; catalogId: string; fromCents: number; toCents: number }
  | { status: "not_found" }
  | { status: "stale"; message: string }
  | { status: "invalid_price" };

/**
 * Changes a pack's price for future orders. Orders keep the price they were placed at
 * (orders.unit_price_cents and amount_cents are a snapshot), so nothing already charged moves.
 */
export async function setProductPrice(input: {
  productId: number;
  priceCents: number;
  /** The version the price form was opened on (lib/db/edit-version.ts). */
  version?: string;
  actor: string;
}): Promise<SetProductPriceResult> {
  const expected = expectedVersion(input.version);
  if (!Number.isSafeInteger(input.priceCents) || input.priceCents <= 0 || input.priceCents > MAX_PRODUCT_PRICE_CENTS) {
    return { status: "invalid_price" };
  }
  return getPrisma().$transaction(async (tx) => {
    // Compare-and-set on the price read: the audit entry names the price this change replaced even
    // when two admins change it at once (the loser reads again and retries).
    for (;;) {
      const before = await tx.product.findUnique({
        select: { priceCents: true, catalogId: true },
        where: { id: input.productId },
      });
      if (!before) return { status: "not_found" as const };
      const fromCents = numberFromDb(before.priceCents);
      const changed = fromCents !== input.priceCents;
      if (changed) {
        // With a form's version, the price it was opened on; without one, the price read (retried).
        const { count } = await tx.product.updateMany({
          where: expected
            ? { id: input.productId, updatedAt: expected }
            : { id: input.productId, priceCents: before.priceCents },
          data: { priceCents: input.priceCents, updatedAt: nextVersion(expected) },
        });
        if (count === 0 && expected) return { status: "stale" as const, message: staleEditMessage(before.catalogId) };
        if (count === 0) continue;
      }
      await recordAuditEntry(
        {
          actor: input.actor,
          action: "product.price",
          targetType: "product",
          targetId: input.productId,
          details: { catalogId: before.catalogId, fromCents, toCents: input.priceCents },
        },
        tx,
      );
      return {
        status: changed ? ("updated" as const) : ("unchanged" as const),
        catalogId: before.catalogId,
        fromCents,
        toCents: input.priceCents,
      };
    }
  });
}
