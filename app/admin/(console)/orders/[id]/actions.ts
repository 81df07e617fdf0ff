"use server";
// Settling an order flagged for an admin. Each action checks the session itself (an action is a
// public POST endpoint whatever page shows it), requires the form's confirmation step, and leaves
// an audit entry with the admin's email (lib/dashboard/settle-flagged-order.ts). Next runs server
// actions only for same-origin requests (Origin must match Host): that is the CSRF protection.
import { revalidatePath } from "next/cache";
import { settleFlaggedOrder, type FlaggedOrderOutcome } from "@/lib/dashboard/settle-flagged-order";
import { formatUsd } from "../../../_lib/format";
import { idField, isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../../_lib/action-state";
import { requireAdminForAction } from "../../../_lib/session";

async function settle(outcome: FlaggedOrderOutcome, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const orderId = idField(formData, "orderId");
  if (orderId === undefined) return { ok: false, message: "No order given." };
  const result = await settleFlaggedOrder({
    orderId,
    outcome,
    reason: textField(formData, "reason"),
    actor: admin.actor,
  });
  revalidatePath(`/admin/orders/${orderId}`);
  switch (result.status) {
    case "settled":
      return {
        ok: true,
        message:
          outcome === "complete"
            ? `${result.publicId} marked completed.`
            : `${result.publicId} cancelled; ${formatUsd(result.refundedCents)} refunded to the wallet.`,
      };
    case "not_found":
      return { ok: false, message: "No such order." };
    case "not_flagged":
      return {
        ok: false,
        message: `This order is ${result.orderStatus} and not waiting for an admin: nothing was changed.`,
      };
    case "already_settled":
      return {
        ok: false,
        message: `Already settled by someone else (now ${result.orderStatus}): nothing was changed.`,
      };
  }
}

export async function completeFlaggedOrderAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  return settle("complete", formData);
}

export async function cancelAndRefundFlaggedOrderAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  return settle("cancel_refund", formData);
}
