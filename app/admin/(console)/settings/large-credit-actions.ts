"use server";
// The amount above which a credit in the bot needs a second admin's approval (four eyes on money).
// Owners only, with the second factor proved within 15 minutes (a money change): it decides how much
// one admin can move alone. Audited as a setting change.
import { revalidatePath } from "next/cache";
import { setLargeCreditThreshold } from "@/lib/settings/set-large-credit-threshold";
import { parseUsd } from "@/lib/money/parse-usd";
import { StaleEditError } from "@/lib/db/edit-version";
import { isConfirmed, NOT_CONFIRMED, textField, versionField, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";
import { formatUsd } from "../../_lib/format";

export async function setLargeCreditThresholdAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const text = textField(formData, "aboveUsd").replace(/^\$/, "");
  const parsed = text === "0" || text === "0.00" ? ({ ok: true, cents: 0 } as const) : parseUsd(text);
  if (!parsed.ok) return { ok: false, message: `Amount: ${parsed.error}` };
  let change;
  try {
    change = await setLargeCreditThreshold(parsed.cents, gate.admin.actor, versionField(formData));
  } catch (error) {
    if (error instanceof StaleEditError) return { ok: false, message: error.message };
    throw error;
  }
  revalidatePath("/admin/settings");
  return {
    ok: true,
    message:
      change.value === 0
        ? "Saved: every credit now needs a second admin's approval."
        : `Saved: credits above ${formatUsd(change.value)} need a second admin's approval.`,
  };
}
