import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import type { PriceTierChange } from "./price-tier-rules";
import { lockPriceTier } from "./sql/lock-price-tier";

/**
 * Removes a tier and its pack rules; its accounts go back to list prices for new orders (the
 * foreign key sets theirs to null in the same transaction). The audit entry names them.
 */
export async function removePriceTier(input: { tierId: number; actor: string }): Promise<PriceTierChange> {
  return getPrisma().$transaction(async (tx) => {
    const name = await lockPriceTier(tx, input.tierId);
    if (name === undefined) return { status: "refused" as const, message: "No such tier." };
    const accounts = await tx.account.findMany({
      where: { priceTierId: input.tierId },
      select: { id: true },
      orderBy: { id: "asc" },
    });
    await tx.priceTier.delete({ where: { id: input.tierId } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "price_tier.remove",
        targetType: "price_tier",
        targetId: input.tierId,
        details: { name, accountIds: accounts.map((account) => account.id) },
      },
      tx,
    );
    const moved = accounts.length === 1 ? "1 account pays" : `${accounts.length} accounts pay`;
    return { status: "saved" as const, message: `Tier ${name} removed: ${moved} list prices on new orders.` };
  });
}
