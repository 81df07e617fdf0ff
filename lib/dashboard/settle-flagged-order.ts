// An admin settles an order the worker flagged (needs_admin): mark it completed, or cancel it and
// refund the charge. The terminal transition itself is the worker's own guarded function
// (lib/fulfilment/settle-order.ts), so a double click, two admins, or the worker finishing at the
// same moment settle the order exactly once; the loser is told it was already settled.
import { getPool } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { cancelAndRefundOrder, completeOrder } from "../fulfilment/settle-order";

export type FlaggedOrderOutcome = "complete" | "cancel_refund";

export type SettleFlaggedOrderResult =
  | { status: "settled"; outcome: FlaggedOrderOutcome; publicId: string; refundedCents: number }
  | { status: "not_found" }
  /** Not flagged for an admin: the worker still owns it, or it is finished. Nothing changed. */
  | { status: "not_flagged"; orderStatus: string }
  /** Someone (another admin, the worker) settled it between the check and the change. */
  | { status: "already_settled"; orderStatus: string };

export const MAX_SETTLE_REASON_LENGTH = 200;

export async function settleFlaggedOrder(input: {
  orderId: number;
  outcome: FlaggedOrderOutcome;
  /** Why, in the admin's words; kept on the order event and in the audit log. */
  reason: string;
  actor: string;
}): Promise<SettleFlaggedOrderResult> {
  const reason = input.reason.trim().slice(0, MAX_SETTLE_REASON_LENGTH);
  const { rows } = await getPool().query<{ status: string; needsAdmin: boolean; publicId: string }>(
    `SELECT status, needs_admin AS "needsAdmin", public_id AS "publicId" FROM orders WHERE id = $1`,
    [input.orderId],
  );
  const before = rows[0];
  if (!before) return { status: "not_found" };
  const open = before.status === "pending" || before.status === "processing";
  if (!open || !before.needsAdmin) return { status: "not_flagged", orderStatus: before.status };

  const result =
    input.outcome === "complete"
      ? await completeOrder(input.orderId, reason ? `completed by an admin: ${reason}` : "completed by an admin", input.actor)
      : // The error is what the client's invoice shows: a fixed word, never the admin's own notes.
        await cancelAndRefundOrder(input.orderId, "CANCELLED BY ADMIN", input.actor);

  // The settle functions own their transaction, so this entry is written right after it commits.
  // A losing attempt is recorded too: the log shows every click, and which one changed the order.
  const refundedCents = result.settled && input.outcome === "cancel_refund" && result.order.refunded ? result.order.amount_cents : 0;
  await recordAuditEntry({
    actor: input.actor,
    action: input.outcome === "complete" ? "order.complete" : "order.cancel_refund",
    targetType: "order",
    targetId: input.orderId,
    details: { publicId: before.publicId, reason: reason || null, settled: result.settled, refundedCents },
  });
  if (!result.settled) {
    const after = await getPool().query<{ status: string }>(`SELECT status FROM orders WHERE id = $1`, [input.orderId]);
    return { status: "already_settled", orderStatus: after.rows[0]?.status ?? "unknown" };
  }
  return { status: "settled", outcome: input.outcome, publicId: before.publicId, refundedCents };
}
