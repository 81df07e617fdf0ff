import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/** The longest refund window a line may allow: 90 days. */
export const MAX_REFUND_WINDOW_HOURS = 90 * 24;

/**
 * How long after completion a holder may ask for the refund of an order of the line
 * (POST /orders/{orderId}/refund-request); null: the line takes no refund requests. Orders already
 * completed follow the window as it is when the request comes.
 */
export async function setLineRefundWindow(input: {
  lineId: number;
  hours: number | null;
  actor: string;
}): Promise<{ status: "updated"; slug: string } | { status: "not_found" } | { status: "invalid" }> {
  const { hours } = input;
  if (hours !== null && (!Number.isSafeInteger(hours) || hours < 1 || hours > MAX_REFUND_WINDOW_HOURS))
    return { status: "invalid" };
  return getPrisma().$transaction(async (tx) => {
    const { count } = await tx.gameLine.updateMany({ where: { id: input.lineId }, data: { refundWindowHours: hours } });
    if (count === 0) return { status: "not_found" as const };
    const line = await tx.gameLine.findUniqueOrThrow({ select: { slug: true }, where: { id: input.lineId } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "line.refund_window",
        targetType: "game_line",
        targetId: input.lineId,
        details: { slug: line.slug, hours },
      },
      tx,
    );
    return { status: "updated" as const, slug: line.slug };
  });
}
