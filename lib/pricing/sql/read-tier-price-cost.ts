import type { PrismaTx } from "../../db/prisma";
import { nullableNumberFromDb, numberFromDb } from "../../db/number-from-db";
import type { TierRule } from "../price-tier-rules";

/**
 * What a tier rule would charge for a pack (pack_price, as the API prices) and the pack's cheapest
 * live supplier cost (suppliers not paused; null when none carries it).
 */
export async function readTierPriceCost(
  tx: PrismaTx,
  productId: number,
  rule: TierRule,
): Promise<{ tierPriceCents: number; cheapestCostCents: number | null }> {
  const priceCents = rule.priceCents === null ? null : BigInt(rule.priceCents);
  const rows = await tx.$queryRaw<{ tierPriceCents: bigint | number; cheapestCostCents: bigint | number | null }[]>`
    SELECT pack_price(p.price_cents, ${priceCents}::bigint, ${rule.percentOffBp}::integer) AS "tierPriceCents",
           (SELECT min(o.cost_cents) FROM supplier_offers o JOIN suppliers s ON s.id = o.supplier_id
             WHERE o.product_id = p.id AND s.paused_at IS NULL) AS "cheapestCostCents"
      FROM products p
     WHERE p.id = ${productId}`;
  const row = rows[0]!;
  return {
    tierPriceCents: numberFromDb(row.tierPriceCents),
    cheapestCostCents: nullableNumberFromDb(row.cheapestCostCents),
  };
}
