import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";

/**
 * Opens or closes a game line for new orders. A closed line stays listed by GET /services with
 * status "disabled", and new orders answer GAME DISABLED; orders in flight finish normally.
 */
export async function setLineOrderable(input: {
  lineId: number;
  orderable: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; slug: string } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const before = await client.query<{ orderable: boolean; slug: string }>(`SELECT orderable, slug FROM game_lines WHERE id = $1 FOR UPDATE`, [
      input.lineId,
    ]);
    if (before.rowCount === 0) return { status: "not_found" as const };
    const { orderable, slug } = before.rows[0];
    const changed = orderable !== input.orderable;
    if (changed) await client.query(`UPDATE game_lines SET orderable = $2, updated_at = now() WHERE id = $1`, [input.lineId, input.orderable]);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.orderable ? "line.open" : "line.close",
        targetType: "game_line",
        targetId: input.lineId,
        details: { slug, changed },
      },
      client,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), slug };
  });
}
