"use server";
// The signed-in admin's own two-factor (set up on the enrolment page, app/admin/two-factor-setup):
// new recovery codes for a current code, or turn it off with the password and a current code. Any
// role may: each acts on the caller's own account only. Wrong codes and passwords here count
// against the admin's second step as at sign-in; every change is audited (lib/admin-users).
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
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
