"use server";
// Managing the dashboard's admins, owners only (with two-factor on): invite (a generated password
// shown once), change a role, disable or enable, reset a lost two-factor. Each checks the session
// itself, needs the confirmation step, and is audited in the change's transaction (lib/admin-users).
// The last active owner can be neither demoted nor disabled, and nobody disables themselves.
import { revalidatePath } from "next/cache";
import { isAdminRole } from "@/lib/admin-users/admin-role";
import { inviteAdminUser } from "@/lib/admin-users/invite-admin-user";
import { setAdminRole } from "@/lib/admin-users/set-admin-role";
import { setAdminDisabled } from "@/lib/admin-users/set-admin-disabled";
import { resetAdminTwoFactor } from "@/lib/admin-users/reset-admin-two-factor";
import { idField, isConfirmed, NOT_CONFIRMED, textField, type ActionState } from "../../_lib/action-state";
import { requireAdminForAction } from "../../_lib/session";

const NO_ADMIN: ActionState = { ok: false, message: "No such admin." };

export async function inviteAdminAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const role = textField(formData, "role");
  if (!isAdminRole(role)) return { ok: false, message: "Choose a role: viewer, operator or owner." };
  const result = await inviteAdminUser({ email: textField(formData, "email"), role, actor: gate.admin.actor });
  revalidatePath("/admin/admins");
  switch (result.status) {
    case "invalid_email":
      return { ok: false, message: "That is not an email address." };
    case "exists":
      return { ok: false, message: "An admin with that email exists already: nothing was changed." };
    case "weak_password":
      return { ok: false, message: "Could not generate a password: nothing was changed." };
    case "created":
      return {
        ok: true,
        message: `${result.admin.email} can sign in as ${role} with this password, shown only now: hand it over privately. Their first sign-in sets up two-factor before any dashboard page.`,
        shownOnce: [result.password],
      };
  }
}

export async function setAdminRoleAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const adminId = idField(formData, "adminId");
  if (adminId === undefined) return NO_ADMIN;
  const role = textField(formData, "role");
  if (!isAdminRole(role)) return { ok: false, message: "Choose a role: viewer, operator or owner." };
  const result = await setAdminRole({ adminId, role, actor: gate.admin.actor });
  revalidatePath("/admin/admins");
  switch (result.status) {
    case "not_found":
      return NO_ADMIN;
    case "unchanged":
      return { ok: true, message: `${result.email} is ${role} already.` };
    case "last_owner":
      return { ok: false, message: `${result.email} is the last active owner and stays one: nothing was changed.` };
    case "changed":
      return { ok: true, message: `${result.email} is now ${result.to} (was ${result.from}).` };
  }
}

export async function setAdminDisabledAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const adminId = idField(formData, "adminId");
  if (adminId === undefined) return NO_ADMIN;
  const disabled = textField(formData, "disabled") === "true";
  const result = await setAdminDisabled({ adminId, disabled, byAdminId: gate.admin.id, actor: gate.admin.actor });
  revalidatePath("/admin/admins");
  switch (result.status) {
    case "not_found":
      return NO_ADMIN;
    case "self":
      return { ok: false, message: "You cannot disable yourself: nothing was changed." };
    case "last_owner":
      return { ok: false, message: `${result.email} is the last active owner and stays enabled: nothing was changed.` };
    case "unchanged":
      return { ok: true, message: `${result.email} was already ${disabled ? "disabled" : "enabled"}.` };
    case "changed":
      return {
        ok: true,
        message: disabled ? `${result.email} is disabled: their sessions have ended.` : `${result.email} is enabled.`,
      };
  }
}

export async function resetAdminTwoFactorAction(_state: ActionState, formData: FormData): Promise<ActionState> {
  const gate = await requireAdminForAction("owner", { recent: true });
  if ("refusal" in gate) return gate.refusal;
  if (!isConfirmed(formData)) return NOT_CONFIRMED;
  const adminId = idField(formData, "adminId");
  if (adminId === undefined) return NO_ADMIN;
  // Your own goes through Your account, which asks for a current code.
  if (adminId === gate.admin.id)
    return { ok: false, message: "Turn your own two-factor off under Your account: nothing was changed." };
  const result = await resetAdminTwoFactor({ adminId, actor: gate.admin.actor });
  revalidatePath("/admin/admins");
  if (result.status === "not_found") return NO_ADMIN;
  if (result.status === "not_on") return { ok: true, message: "Two-factor was not on." };
  return {
    ok: true,
    message: `${result.email}'s two-factor is off: they sign in with their password and set it up again.`,
  };
}
