// An admin settles an order the worker flagged (needs_admin): mark it completed, or cancel it and
// refund the charge. The terminal transition itself is the worker's own guarded function
// (lib/fulfilment/sql/settle-order.ts), so a double click, two admins, or the worker finishing at the
// same moment settle the order exactly once; the loser is told it was already settled.
import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { cancelAndRefundOrder, completeOrder } from "../fulfilment/sql/settle-order";
import type { OrderRecord } from "../orders/order-record";

export type FlaggedOrderOutcome = "complete" | "cancel_refund";

export type SettleFlaggedOrderResult =
  | { status: "settled"; outcome: FlaggedOrderOutcome; publicId: string; refundedCents: number }
  | { status: "not_found" }
  /** Not flagged for an admin: the worker still owns it, or it is finished. Nothing changed. */
  | { status: "not_flagged"; orderStatus: string }
  /** Someone (another admin, the worker) settled it between the check and the change. */
  | { status: "already_settled"; orderStatus: string };

const MAX_SETTLE_REASON_LENGTH = 200;

export async function settleFlaggedOrder(input: {
  orderId: number;
  outcome: FlaggedOrderOutcome;
  /** Why, in the admin's words; kept on the order event and in the audit log. */
  reason: string;
  actor: string;
}): Promise<SettleFlaggedOrderResult> {
  const reason = input.reason.trim().slice(0, MAX_SETTLE_REASON_LENGTH);
  const before = await getPrisma().order.findUnique({
    select: { status: true, needsAdmin: true, publicId: true },
    where: { id: input.orderId },
  });
  if (!before) return { status: "not_found" };
  const open = before.status === "pending" || before.status === "processing";
  if (!open || !before.needsAdmin) return { status: "not_flagged", orderStatus: before.status };

  const action = input.outcome === "complete" ? "order.complete" : "order.cancel_refund";
  const auditEntry = (settled: boolean, refundedCents: number) => ({
    actor: input.actor,
    action,
    targetType: "order",
    targetId: input.orderId,
    details: { publicId: before.publicId, reason: reason || null, settled, refundedCents },
  });
  // The winning attempt's audit entry commits in the settlement's own transaction (and the refund's
  // ledger entry links to it); a losing attempt is recorded too, so the log shows every click.
  const refundOf = (order: Pick<OrderRecord, "orderCreated" | "amountCents">) =>
    input.outcome === "cancel_refund" && order.orderCreated ? order.amountCents : 0;
  const result =
    input.outcome === "complete"
      ? await completeOrder(input.orderId, reason ? `completed by an admin: ${reason}` : "completed by an admin", {
          actor: input.actor,
          audit: () => auditEntry(true, 0),
        })
      : // The error is what the client's invoice shows: a fixed word, never the admin's own notes.
        await cancelAndRefundOrder(input.orderId, "CANCELLED BY ADMIN", {
          actor: input.actor,
          audit: (order) => auditEntry(true, refundOf(order)),
        });
  if (!result.settled) await recordAuditEntry(auditEntry(false, 0));
  const refundedCents = result.settled ? refundOf(result.order) : 0;
  if (!result.settled) {
    const after = await getPrisma().order.findUnique({ select: { status: true }, where: { id: input.orderId } });
    return { status: "already_settled", orderStatus: after?.status ?? "unknown" };
  }
  return { status: "settled", outcome: input.outcome, publicId: before.publicId, refundedCents };
}
