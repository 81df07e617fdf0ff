import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { isUniqueViolation, PriceTierName, type PriceTierChange } from "./price-tier-rules";

/** A new, empty price tier: every pack at its list price until a rule is set (setTierPackPrice). */
export async function createPriceTier(input: { name: string; actor: string }): Promise<PriceTierChange> {
  const name = PriceTierName.safeParse(input.name);
  if (!name.success) return { status: "refused", message: `Name: ${name.error.issues[0]!.message}.` };
  try {
    return await getPrisma().$transaction(async (tx) => {
      const tier = await tx.priceTier.create({ data: { name: name.data }, select: { id: true } });
      await recordAuditEntry(
        {
          actor: input.actor,
          action: "price_tier.create",
          targetType: "price_tier",
          targetId: tier.id,
          details: { name: name.data },
        },
        tx,
      );
      return { status: "saved" as const, message: `Tier ${name.data} created: every pack at its list price so far.` };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { status: "refused", message: `A tier named ${name.data} exists already.` };
    throw error;
  }
}
