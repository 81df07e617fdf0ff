import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/**
 * Enables or disables a pack. A disabled pack leaves GET /products and new orders for it answer
 * PRODUCT_DISABLED; orders already placed are not touched. Audited even when nothing changed.
 */
export async function setProductActive(input: {
  productId: number;
  active: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; catalogId: string } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    // A conditional update: of two admins flipping the same switch, exactly one sees "updated".
    const { count } = await tx.product.updateMany({
      where: { id: input.productId, active: !input.active },
      data: { active: input.active },
    });
    const product = await tx.product.findUnique({ select: { catalogId: true }, where: { id: input.productId } });
    if (!product) return { status: "not_found" as const };
    const changed = count > 0;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.active ? "product.enable" : "product.disable",
        targetType: "product",
        targetId: input.productId,
        details: { catalogId: product.catalogId, changed },
      },
      tx,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), catalogId: product.catalogId };
  });
}
