"use server";
// The signed-in admin's own two-factor: set it up (a new secret, confirmed by a code from it, then
// recovery codes shown once), new recovery codes for a current code, or turn it off with the
// password and a current code. Any role may: each acts on the caller's own account only. Wrong
// codes and passwords here count against the admin's second step as at sign-in; every change is
// audited (lib/admin-users).
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { startTwoFactorSetup } from "@/lib/admin-users/start-two-factor-setup";
import { confirmTwoFactorSetup } from "@/lib/admin-users/confirm-two-factor-setup";
import { turnOffTwoFactor } from "@/lib/admin-users/turn-off-two-factor";
import { regenerateRecoveryCodes } from "@/lib/admin-users/regenerate-recovery-codes";
import { resolveRequestClientIp } from "@/lib/http/client-address";
import { authFailureScope } from "@/lib/ratelimit/auth-failure-scope";
import { isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

/** The request's source (an IPv4 address or an IPv6 /64), for the wrong codes' record. */
async function requestSource(): Promise<string> {
  const requestHeaders = await headers();
  try {
    return authFailureScope(resolveRequestClientIp((name) => requestHeaders.get(name)));
  } catch {
    return "unknown";
  }
}

function lockedMessage(retryAfterSeconds: number): string {
  return `Too many wrong codes or passwords: this account's two-factor step is locked for about ${Math.ceil(retryAfterSeconds / 60)} more minutes, and the owners have been told. Nothing was changed.`;
}

export async function startTwoFactorSetupAction(_state: ActionState, _formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("viewer");
  if ("refusal" in gate) return gate.refusal;
  const result = await startTwoFactorSetup(gate.admin.id);
  revalidatePath("/admin/account");
  if (result.status === "already_on") return { ok: false, message: "Two-factor is already on." };
  if (result.status === "not_found") return { ok: false, message: "No such admin." };
  return { ok: true, message: "Scan the new secret below with your authenticator app, then enter a code from it." };
}

export async function confirmTwoFactorSetupAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("viewer");
  if ("refusal" in gate) return gate.refusal;
  const result = await confirmTwoFactorSetup({
    adminId: gate.admin.id,
    code: textField(formData, "code"),
    actor: gate.admin.actor,
  });
  if (result.status === "no_setup") return { ok: false, message: "No set-up in progress: start one first." };
  if (result.status === "wrong_code")
    return { ok: false, message: "That code does not match the secret: check the app's clock and try a new code." };
  // No revalidatePath: the page would re-render without this form, and with it these codes.
  return {
    ok: true,
    message:
      "Two-factor is on. Save these recovery codes now, they are shown only once; each signs in once without the app.",
    shownOnce: result.recoveryCodes,
  };
}

export async function turnOffTwoFactorAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("viewer");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  // The password as typed: spaces are part of it.
  const password = formData instanceof FormData ? formData.get("password") : null;
  const result = await turnOffTwoFactor({
    adminId: gate.admin.id,
    password: typeof password === "string" ? password : "",
    code: textField(formData, "code"),
    actor: gate.admin.actor,
    source: await requestSource(),
  });
  if (result.status === "not_on") return { ok: false, message: "Two-factor is not on." };
  if (result.status === "locked") return { ok: false, message: lockedMessage(result.retryAfterSeconds) };
  if (result.status === "wrong_password") return { ok: false, message: "Wrong password: two-factor stays on." };
  if (result.status === "wrong_code") return { ok: false, message: "Wrong or used code: two-factor stays on." };
  revalidatePath("/admin/account");
  return { ok: true, message: "Two-factor is off: you sign in with your password alone." };
}

export async function regenerateRecoveryCodesAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("viewer");
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const result = await regenerateRecoveryCodes({
    adminId: gate.admin.id,
    code: textField(formData, "code"),
    actor: gate.admin.actor,
    source: await requestSource(),
  });
  if (result.status === "not_on") return { ok: false, message: "Two-factor is not on." };
  if (result.status === "locked") return { ok: false, message: lockedMessage(result.retryAfterSeconds) };
  if (result.status === "wrong_code")
    return { ok: false, message: "Wrong or used code: your recovery codes stay as they were." };
  // No revalidatePath: the page would re-render without this answer, and with it these codes.
  return {
    ok: true,
    message:
      "New recovery codes: the old ones no longer work. Save these now, they are shown only once; each signs in once without the app.",
    shownOnce: result.recoveryCodes,
  };
}
