import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { expectedVersion, nextVersion, staleEditMessage, whereVersion } from "../db/edit-version";
import { isUniqueViolation, PriceTierName, type PriceTierChange } from "./price-tier-rules";

/** Renames a tier; its accounts and prices stay as they are. */
export async function renamePriceTier(input: {
  tierId: number;
  name: string;
  /** The tier's version the form was opened on (lib/db/edit-version.ts). */
  version?: string;
  actor: string;
}): Promise<PriceTierChange> {
  const expected = expectedVersion(input.version);
  const name = PriceTierName.safeParse(input.name);
  if (!name.success) return { status: "refused", message: `Name: ${name.error.issues[0]!.message}.` };
  try {
    return await getPrisma().$transaction(async (tx) => {
      const before = await tx.priceTier.findUnique({ where: { id: input.tierId }, select: { name: true } });
      if (!before) return { status: "refused" as const, message: "No such tier." };
      if (before.name === name.data) return { status: "saved" as const, message: `Tier ${name.data}: unchanged.` };
      const renamed = await tx.priceTier.updateMany({
        where: whereVersion({ id: input.tierId }, expected),
        data: { name: name.data, updatedAt: nextVersion(expected) },
      });
      if (renamed.count === 0) return { status: "refused" as const, message: staleEditMessage(`Tier ${before.name}`) };
      await recordAuditEntry(
        {
          actor: input.actor,
          action: "price_tier.rename",
          targetType: "price_tier",
          targetId: input.tierId,
          details: { from: before.name, to: name.data },
        },
        tx,
      );
      return { status: "saved" as const, message: `Tier ${before.name} is now ${name.data}.` };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { status: "refused", message: `A tier named ${name.data} exists already.` };
    throw error;
  }
}
