import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/**
 * Opens or closes a game line for new orders. A closed line stays listed by GET /services with
 * status "disabled", and new orders answer GAME DISABLED; orders in flight finish normally.
 */
export async function setLineOrderable(input: {
  lineId: number;
  orderable: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; slug: string } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    // A conditional update: of two admins flipping the same switch, exactly one sees "updated".
    const { count } = await tx.gameLine.updateMany({
      where: { id: input.lineId, orderable: !input.orderable },
      data: { orderable: input.orderable },
    });
    const line = await tx.gameLine.findUnique({ select: { slug: true }, where: { id: input.lineId } });
    if (!line) return { status: "not_found" as const };
    const changed = count > 0;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.orderable ? "line.open" : "line.close",
        targetType: "game_line",
        targetId: input.lineId,
        details: { slug: line.slug, changed },
      },
      tx,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), slug: line.slug };
  });
}
