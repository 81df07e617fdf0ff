"use server";
// Account actions: ban, unban, restrict (or lift), block and unblock API access, and the price
// tier (owners only). None of them moves money (funding stays in the bot). Each checks the session
// itself, needs the form's confirmation, and is audited with the admin's email by the lib function
// (same transaction).
// Next runs server actions only when the Origin matches the Host: that is the CSRF protection.
import { revalidatePath } from "next/cache";
import { banAccount } from "@/lib/accounts/ban-account";
import { unbanAccount } from "@/lib/accounts/unban-account";
import { MAX_RESTRICT_MINUTES, restrictAccount } from "@/lib/accounts/restrict-account";
import { setAdminApiBlock } from "@/lib/accounts/set-admin-api-block";
import { setAccountTier } from "@/lib/pricing/set-account-tier";
import { formatTime } from "../../../_lib/format";
import { idField, isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../../_lib/action-state";
import { requireAdminForAction, type SignedInAdmin } from "../../../_lib/session";

const MAX_REASON_LENGTH = 200;
const NO_ACCOUNT: ActionState = { ok: false, message: "No such account." };

/** The signed-in admin and the confirmed account id, or the answer refusing the request. */
async function authorise(
  formData: FormData,
): Promise<{ admin: SignedInAdmin; accountId: number } | { refusal: ActionState }> {
  const gate = await requireAdminForAction("operator");
  if ("refusal" in gate) return gate;
  const { admin } = gate;
  if (!isConfirmed(formData)) return { refusal: NOT_CONFIRMED };
  const accountId = idField(formData, "accountId");
  if (accountId === undefined) return { refusal: NO_ACCOUNT };
  return { admin, accountId };
}

export async function banAccountAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const checked = await authorise(formData);
  if ("refusal" in checked) return checked.refusal;
  const reason = textField(formData, "reason").slice(0, MAX_REASON_LENGTH) || null;
  const result = await banAccount({ accountId: checked.accountId, actor: checked.admin.actor, reason });
  revalidatePath(`/admin/accounts/${checked.accountId}`);
  if (result.status === "not_found") return NO_ACCOUNT;
  return {
    ok: true,
    message:
      result.status === "banned"
        ? "Banned: every API call now answers ACCOUNT_BANNED."
        : "Was already banned (reason updated).",
  };
}

export async function unbanAccountAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const checked = await authorise(formData);
  if ("refusal" in checked) return checked.refusal;
  const result = await unbanAccount({ accountId: checked.accountId, actor: checked.admin.actor });
  revalidatePath(`/admin/accounts/${checked.accountId}`);
  if (result.status === "not_found") return NO_ACCOUNT;
  return { ok: true, message: result.status === "unbanned" ? "Ban lifted." : "Was not banned." };
}

export async function restrictAccountAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const checked = await authorise(formData);
  if ("refusal" in checked) return checked.refusal;
  const hoursText = textField(formData, "hours");
  const hours = Number(hoursText);
  const minutes = Math.round(hours * 60);
  if (!/^\d+(\.\d+)?$/.test(hoursText) || minutes < 0 || minutes > MAX_RESTRICT_MINUTES) {
    return { ok: false, message: `Hours must be a number from 0 (lift) to ${MAX_RESTRICT_MINUTES / 60}.` };
  }
  const reason = textField(formData, "reason").slice(0, MAX_REASON_LENGTH) || null;
  const result = await restrictAccount({ accountId: checked.accountId, minutes, actor: checked.admin.actor, reason });
  revalidatePath(`/admin/accounts/${checked.accountId}`);
  if (result.status === "not_found") return NO_ACCOUNT;
  return {
    ok: true,
    message:
      result.status === "lifted"
        ? "Restriction lifted."
        : `Restricted until ${formatTime(result.account.restrictedUntil)}: API calls answer ACCOUNT_RESTRICTED.`,
  };
}

export async function liftRestrictionAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const checked = await authorise(formData);
  if ("refusal" in checked) return checked.refusal;
  const result = await restrictAccount({ accountId: checked.accountId, minutes: 0, actor: checked.admin.actor });
  revalidatePath(`/admin/accounts/${checked.accountId}`);
  return result.status === "not_found" ? NO_ACCOUNT : { ok: true, message: "Restriction lifted." };
}

export async function blockApiAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const checked = await authorise(formData);
  if ("refusal" in checked) return checked.refusal;
  const result = await setAdminApiBlock({ accountId: checked.accountId, blocked: true, actor: checked.admin.actor });
  revalidatePath(`/admin/accounts/${checked.accountId}`);
  if (result.status === "not_found") return NO_ACCOUNT;
  return {
    ok: true,
    message:
      result.status === "updated"
        ? "API access blocked: calls answer API_DISABLED_BY_ADMIN."
        : "API access was already blocked.",
  };
}

export async function unblockApiAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const checked = await authorise(formData);
  if ("refusal" in checked) return checked.refusal;
  const result = await setAdminApiBlock({ accountId: checked.accountId, blocked: false, actor: checked.admin.actor });
  revalidatePath(`/admin/accounts/${checked.accountId}`);
  if (result.status === "not_found") return NO_ACCOUNT;
  return { ok: true, message: result.status === "updated" ? "API access unblocked." : "API access was not blocked." };
}

export async function setAccountTierAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const accountId = idField(formData, "accountId");
  if (accountId === undefined) return NO_ACCOUNT;
  const result = await setAccountTier({
    accountId,
    tierName: textField(formData, "tier") || null,
    actor: gate.admin.actor,
  });
  revalidatePath(`/admin/accounts/${accountId}`);
  const pays = (tier: string | null) => (tier ? `tier ${tier}` : "list prices");
  switch (result.status) {
    case "not_found":
      return NO_ACCOUNT;
    case "test_account":
      return { ok: false, message: `A test wallet pays its holder's tier: set account #${result.holderId}'s.` };
    case "no_such_tier":
      return { ok: false, message: `No tier ${result.tier}.` };
    case "unchanged":
      return { ok: true, message: `Already on ${pays(result.tier)}.` };
    case "updated":
      return {
        ok: true,
        message: `Now on ${pays(result.tier)} (was ${pays(result.previous)}): new orders are charged its prices.`,
      };
  }
}
