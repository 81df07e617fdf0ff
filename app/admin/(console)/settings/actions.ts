"use server";
// The runtime switches and the API eligibility rule. setSwitch / setEligibilityRule write the
// setting and its audit entry (actor "admin:<email>") in one transaction; every API instance obeys
// within its settings cache period (about a second). Each action checks the session itself; Next
// runs server actions only for same-origin requests (Origin must match Host) against CSRF.
import { revalidatePath } from "next/cache";
import { setEligibilityRule, setSwitch } from "@/lib/settings/set-switch";
import { SWITCH_NAMES, type EligibilityRule, type SwitchName } from "@/lib/settings/setting-schemas";
import { parseUsd } from "@/lib/money/parse-usd";
import { StaleEditError } from "@/lib/db/edit-version";
import { isConfirmed, NOT_CONFIRMED, textField, versionField, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

/** The eligibility rule's minimum credit: any amount an admin could mean, up to $1,000,000. */
const MAX_MIN_CREDITED_CENTS = 100_000_000;

export async function setSwitchAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const name = textField(formData, "name");
  if (!(SWITCH_NAMES as readonly string[]).includes(name)) return { ok: false, message: "Unknown switch." };
  const on = textField(formData, "on") === "true";
  const change = await setSwitch(name as SwitchName, on, admin.actor);
  revalidatePath("/admin/settings");
  return {
    ok: true,
    message: `${name} is ${change.value ? "ON" : "OFF"}${change.previous === change.value ? " (it already was)" : ""}.`,
  };
}

export async function setEligibilityRuleAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate.refusal;
  const { admin } = gate;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const rule: EligibilityRule = { enabled: formData.get("enabled") === "on" };
  const credited = textField(formData, "minTotalCreditedUsd").replace(/^\$/, "");
  if (credited !== "" && credited !== "0") {
    const parsed = parseUsd(credited, MAX_MIN_CREDITED_CENTS);
    if (!parsed.ok) return { ok: false, message: `Minimum credited: ${parsed.error}` };
    rule.minTotalCreditedCents = parsed.cents;
  }
  const ageText = textField(formData, "minAccountAgeHours");
  if (ageText !== "" && ageText !== "0") {
    const hours = Number(ageText);
    if (!/^\d+(\.\d+)?$/.test(ageText) || hours > 100 * 365 * 24)
      return { ok: false, message: "Minimum account age must be a number of hours." };
    rule.minAccountAgeHours = hours;
  }
  try {
    await setEligibilityRule(rule, admin.actor, versionField(formData));
  } catch (error) {
    if (error instanceof StaleEditError) return { ok: false, message: error.message };
    throw error;
  }
  revalidatePath("/admin/settings");
  return {
    ok: true,
    message: rule.enabled
      ? "Eligibility rule saved and enforced."
      : "Eligibility rule saved (disabled: every account may use the API).",
  };
}
