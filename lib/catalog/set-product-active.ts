import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";

/**
 * Enables or disables a pack. A disabled pack leaves GET /products and new orders for it answer
 * PRODUCT_DISABLED; orders already placed are not touched. Audited even when nothing changed.
 */
export async function setProductActive(input: {
  productId: number;
  active: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; catalogId: string } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const before = await client.query<{ active: boolean; catalogId: string }>(
      `SELECT active, catalog_id AS "catalogId" FROM products WHERE id = $1 FOR UPDATE`,
      [input.productId],
    );
    if (before.rowCount === 0) return { status: "not_found" as const };
    const { active, catalogId } = before.rows[0];
    const changed = active !== input.active;
    if (changed) await client.query(`UPDATE products SET active = $2, updated_at = now() WHERE id = $1`, [input.productId, input.active]);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.active ? "product.enable" : "product.disable",
        targetType: "product",
        targetId: input.productId,
        details: { catalogId, changed },
      },
      client,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), catalogId };
  });
}
