import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { nullableNumberFromDb } from "../db/number-from-db";
import { describeTierRule, type PriceTierChange, type TierRule } from "./price-tier-rules";
import { lockPriceTier } from "./sql/lock-price-tier";
import { readTierPriceCost } from "./sql/read-tier-price-cost";
import { isBelowCost } from "./is-below-cost";
import { formatUsd } from "../money/parse-usd";
import { expectedVersion, nextVersion, staleEditMessage, whereVersion } from "../db/edit-version";

/**
 * Sets a pack's rule in a tier (a fixed price or a percent off the list price), or with `rule`
 * null drops it (the pack is back at its list price for the tier). New orders only: an order keeps
 * the price it was placed at. The tier's version (its updated_at) covers its prices: every change
 * moves it on, and a form opened on an older version is refused (lib/db/edit-version.ts). A price
 * below the pack's cheapest live supplier cost is refused unless `belowCostConfirmed`.
 */
export async function setTierPackPrice(input: {
  tierId: number;
  catalogId: string;
  rule: TierRule | null;
  /** The tier's version the form was opened on. */
  version?: string;
  /** The admin confirmed a price below the pack's cheapest live supplier cost. */
  belowCostConfirmed?: boolean;
  actor: string;
}): Promise<PriceTierChange> {
  const expected = expectedVersion(input.version);
  return getPrisma().$transaction(async (tx) => {
    const tierName = await lockPriceTier(tx, input.tierId);
    if (tierName === undefined) return { status: "refused" as const, message: "No such tier." };
    const product = await tx.product.findUnique({ where: { catalogId: input.catalogId }, select: { id: true } });
    if (!product) return { status: "refused" as const, message: `No pack ${input.catalogId}.` };
    if (input.rule && !input.belowCostConfirmed) {
      const { tierPriceCents, cheapestCostCents } = await readTierPriceCost(tx, product.id, input.rule);
      if (isBelowCost(tierPriceCents, cheapestCostCents))
        return {
          status: "refused" as const,
          message: `${input.catalogId} at ${formatUsd(tierPriceCents)} in tier ${tierName} is below its cheapest live supplier cost (${formatUsd(cheapestCostCents!)}): tick "sell below cost" to save it anyway. Nothing was saved.`,
        };
    }
    const moved = await tx.priceTier.updateMany({
      where: whereVersion({ id: input.tierId }, expected),
      data: { updatedAt: nextVersion(expected) },
    });
    if (moved.count === 0) return { status: "refused" as const, message: staleEditMessage(`Tier ${tierName}`) };
    const key = { priceTierId_productId: { priceTierId: input.tierId, productId: product.id } };
    const existing = await tx.priceTierPrice.findUnique({ where: key });
    const before = existing
      ? { priceCents: nullableNumberFromDb(existing.priceCents), percentOffBp: existing.percentOffBp }
      : null;
    if (input.rule) {
      const data = {
        priceCents: input.rule.priceCents === null ? null : BigInt(input.rule.priceCents),
        percentOffBp: input.rule.percentOffBp,
      };
      await tx.priceTierPrice.upsert({
        where: key,
        update: data,
        create: { priceTierId: input.tierId, productId: product.id, ...data },
      });
    } else if (existing) {
      await tx.priceTierPrice.delete({ where: key });
    }
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "price_tier.pack_price",
        targetType: "price_tier",
        targetId: input.tierId,
        details: { tier: tierName, catalogId: input.catalogId, from: before, to: input.rule },
      },
      tx,
    );
    return {
      status: "saved" as const,
      message: `${input.catalogId} in tier ${tierName}: ${describeTierRule(input.rule)} (was ${describeTierRule(before)}), for new orders.`,
    };
  });
}
