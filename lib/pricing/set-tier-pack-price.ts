import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { nullableNumberFromDb } from "../db/number-from-db";
import { describeTierRule, type PriceTierChange, type TierRule } from "./price-tier-rules";
import { lockPriceTier } from "./sql/lock-price-tier";

/**
 * Sets a pack's rule in a tier (a fixed price or a percent off the list price), or with `rule`
 * null drops it (the pack is back at its list price for the tier). New orders only: an order keeps
 * the price it was placed at.
 */
export async function setTierPackPrice(input: {
  tierId: number;
  catalogId: string;
  rule: TierRule | null;
  actor: string;
}): Promise<PriceTierChange> {
  return getPrisma().$transaction(async (tx) => {
    const tierName = await lockPriceTier(tx, input.tierId);
    if (tierName === undefined) return { status: "refused" as const, message: "No such tier." };
    const product = await tx.product.findUnique({ where: { catalogId: input.catalogId }, select: { id: true } });
    if (!product) return { status: "refused" as const, message: `No pack ${input.catalogId}.` };
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
