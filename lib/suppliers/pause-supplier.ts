import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/**
 * Pauses or resumes a supplier account: routing skips a paused supplier (orders already with it are
 * still asked about their outcome). Audited, changed or not.
 */
export async function setSupplierPaused(input: {
  supplierId: number;
  paused: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; name: string } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    // Conditional: of two admins pressing the same button, exactly one sees "updated".
    const { count } = await tx.supplier.updateMany({
      where: { id: input.supplierId, pausedAt: input.paused ? null : { not: null } },
      data: { pausedAt: input.paused ? new Date() : null },
    });
    const supplier = await tx.supplier.findUnique({ select: { name: true }, where: { id: input.supplierId } });
    if (!supplier) return { status: "not_found" as const };
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.paused ? "supplier.pause" : "supplier.resume",
        targetType: "supplier",
        targetId: input.supplierId,
        details: { name: supplier.name, changed: count > 0 },
      },
      tx,
    );
    return { status: count > 0 ? ("updated" as const) : ("unchanged" as const), name: supplier.name };
  });
}
