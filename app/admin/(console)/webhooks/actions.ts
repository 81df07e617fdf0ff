"use server";
// Admin webhook actions: re-send one delivery, or re-send an account's events by sequence range.
// Each checks the session itself, needs the confirmation step, and is audited (lib/webhooks).
import { revalidatePath } from "next/cache";
import { redeliverWebhook } from "@/lib/webhooks/redeliver-webhook";
import { replayWebhookEvents } from "@/lib/webhooks/sql/replay-webhook-events";
import { idField, isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

export async function redeliverWebhookAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const deliveryId = idField(formData, "deliveryId");
  if (deliveryId === undefined) return { ok: false, message: "No delivery given." };
  const result = await redeliverWebhook({ deliveryId, actor: admin.actor });
  revalidatePath("/admin/webhooks");
  if (result.status === "not_found") return { ok: false, message: "No such delivery." };
  if (result.status === "endpoint_disabled")
    return { ok: false, message: "Its endpoint is disabled: nothing was queued." };
  return { ok: true, message: `Queued as delivery #${result.deliveryId}.` };
}

export async function replayWebhookRangeAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const accountId = idField(formData, "accountId");
  const after = textField(formData, "after");
  const through = textField(formData, "through");
  if (accountId === undefined || !/^\d{1,15}$/.test(after) || (through !== "" && !/^\d{1,15}$/.test(through))) {
    return { ok: false, message: "Give an account id, a sequence to start after, and optionally one to stop at." };
  }
  const result = await replayWebhookEvents({
    accountId,
    after: Number(after),
    through: through === "" ? undefined : Number(through),
    actor: admin.actor,
  });
  revalidatePath("/admin/webhooks");
  if (result.status === "endpoint_not_found") return { ok: false, message: "No such endpoint." };
  if (result.status === "quota_exhausted") return { ok: false, message: "The account's replay quota is used up." };
  return { ok: true, message: `${result.events} event(s) matched, ${result.deliveries} delivery(ies) queued.` };
}
