"use server";
// The Deposits page's actions. Approving is a credit: operators, with the second factor proved within
// 15 minutes (a money change, as settling a flagged order is), through the same lib function as the
// bot's Approve (lib/deposits/decide-deposit.ts), so whoever decides first decides and the credit
// happens once. Rejecting needs a reason the holder is told. Owners set the payment methods.
import { revalidatePath } from "next/cache";
import { ZodError } from "zod";
import { approveDeposit, rejectDeposit } from "@/lib/deposits/decide-deposit";
import { setDepositSettings, type DepositMethod } from "@/lib/deposits/deposit-settings";
import { MAX_REJECT_REASON_LENGTH } from "@/lib/deposits/deposit-request";
import { StaleEditError } from "@/lib/db/edit-version";
import { formatUsd } from "../../_lib/format";
import {
  idField,
  isConfirmed,
  NOT_CONFIRMED,
  textField,
  versionField,
  type ActionState,
} from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

export async function approveDepositAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const depositId = idField(formData, "depositId");
  if (depositId === undefined) return { ok: false, message: "No deposit request given." };
  const result = await approveDeposit(depositId, { adminUserId: gate.admin.id, actor: gate.admin.actor });
  revalidatePath("/admin/deposits");
  switch (result.status) {
    case "approved":
      return {
        ok: true,
        message: `${result.deposit.reference} approved: ${formatUsd(result.deposit.amountCents)} credited to account #${result.deposit.accountId}.`,
      };
    case "first_approval":
      return {
        ok: true,
        message: `First approval of ${result.deposit.reference} recorded: above ${formatUsd(result.thresholdCents)} a second admin must approve it.`,
      };
    case "own_first_approval":
      return {
        ok: false,
        message: "You gave the first approval: a second admin must approve it. Nothing was credited.",
      };
    case "already_resolved":
      return {
        ok: false,
        message: `${result.deposit.reference} was already ${result.deposit.status}${result.deposit.resolvedBy ? ` by ${result.deposit.resolvedBy}` : ""}: nothing was credited.`,
      };
    case "expired":
      return { ok: false, message: `${result.deposit.reference} had expired: it is closed, nothing was credited.` };
    case "not_found":
      return { ok: false, message: "No such deposit request." };
  }
}

export async function rejectDepositAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const depositId = idField(formData, "depositId");
  if (depositId === undefined) return { ok: false, message: "No deposit request given." };
  const reason = textField(formData, "reason");
  if (!reason) return { ok: false, message: "A rejection needs a reason: the holder is told it." };
  if (reason.length > MAX_REJECT_REASON_LENGTH)
    return { ok: false, message: `The reason is too long (at most ${MAX_REJECT_REASON_LENGTH} characters).` };
  const result = await rejectDeposit(depositId, { adminUserId: gate.admin.id, actor: gate.admin.actor }, reason);
  revalidatePath("/admin/deposits");
  if (result.status === "not_found") return { ok: false, message: "No such deposit request." };
  if (result.status === "already_resolved")
    return {
      ok: false,
      message: `${result.deposit.reference} was already ${result.deposit.status}: nothing was changed.`,
    };
  return { ok: true, message: `${result.deposit.reference} rejected; the holder is told why.` };
}

/** "Name" on a block's first line, its instructions on the next lines; blocks apart by a blank line. */
function readMethods(text: string): DepositMethod[] {
  return text
    .replace(/\r\n/g, "\n")
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => {
      const [name = "", ...rest] = block.split("\n");
      return { name: name.trim(), instructions: rest.join("\n").trim() };
    });
}

export async function saveDepositSettingsAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const methods = readMethods(textField(formData, "methods"));
  const validity = textField(formData, "validityMinutes");
  if (!/^\d{1,6}$/.test(validity)) return { ok: false, message: "Valid for: a whole number of minutes." };
  try {
    await setDepositSettings({ methods, validityMinutes: Number(validity) }, gate.admin.actor, versionField(formData));
  } catch (error) {
    if (error instanceof StaleEditError) return { ok: false, message: error.message };
    if (error instanceof ZodError)
      return {
        ok: false,
        message:
          "Each method needs a name (its first line, up to 60 characters) and instructions (the next lines, up to 1,000); at most 10 methods; valid for 10 minutes to 7 days. Nothing was saved.",
      };
    throw error;
  }
  revalidatePath("/admin/deposits");
  return {
    ok: true,
    message:
      methods.length === 0
        ? "Saved: no payment method, so /deposit tells holders deposits are not set up."
        : `Saved: ${methods.length} payment method${methods.length === 1 ? "" : "s"}, requests valid ${validity} minutes.`,
  };
}
