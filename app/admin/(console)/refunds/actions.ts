"use server";
// Deciding a refund request: refund all or part of the order, or decline. Each action checks the
// session itself (an action is a public POST endpoint whatever page shows it), requires the form's
// confirmation step and a recent sign-in (money moves), and is decided once whoever clicks first
// (lib/refunds/sql/decide-refund-request.ts), audited with the admin's email.
import { revalidatePath } from "next/cache";
import { decideRefundRequest, type RefundDecision } from "@/lib/refunds/sql/decide-refund-request";
import { parseUsd } from "@/lib/money/parse-usd";
import { formatUsd } from "../../_lib/format";
import { idField, isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

const MAX_NOTE_LENGTH = 300;

async function decide(formData: FormData, decision: (formData: FormData) => RefundDecision | string) {
  const gate = await requireAdminForAction("operator", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const requestId = idField(formData, "requestId");
  if (requestId === undefined) return { ok: false, message: "No refund request given." };
  const chosen = decision(formData);
  if (typeof chosen === "string") return { ok: false, message: chosen };
  const result = await decideRefundRequest({
    requestId,
    note: textField(formData, "note").slice(0, MAX_NOTE_LENGTH),
    actor: gate.admin.actor,
    ...chosen,
  });
  revalidatePath("/admin/refunds");
  switch (result.status) {
    case "decided":
      revalidatePath(`/admin/orders/${result.order.id}`);
      return {
        ok: true,
        message:
          result.request.status === "refunded"
            ? `${result.order.publicId}: ${formatUsd(result.request.refundCents ?? 0)} refunded to the wallet.`
            : `${result.order.publicId}: refund declined.`,
      };
    case "not_found":
      return { ok: false, message: "No such refund request." };
    case "already_decided":
      return { ok: false, message: `Already ${result.decidedAs} by someone else: nothing was changed.` };
    case "invalid_amount":
      return { ok: false, message: `The refund must be from $0.01 to ${formatUsd(result.maxCents)}.` };
  }
}

export async function refundRequestAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  return decide(formData, (form) => {
    const amount = parseUsd(textField(form, "amountUsd"));
    if (!amount.ok) return amount.error;
    return { decision: "refund", refundCents: amount.cents, restock: textField(form, "restock") === "on" };
  });
}

export async function declineRefundRequestAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  return decide(formData, () => ({ decision: "decline" }));
}
