// The only way dashboard code learns who is signed in. Pages call requireAdminPage (redirects to
// the sign-in page); server actions call requireAdminForAction with the role they need and refuse
// whoever lacks it: an action is a public POST endpoint, so it never trusts that its page checked.
import { cache } from "react";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth/next";
import { findActiveAdmin } from "@/lib/admin-users/find-active-admin";
import { adminActor, hasTwoFactor, type AdminUserRecord } from "@/lib/admin-users/admin-user-record";
import { roleAllows, type AdminRole } from "@/lib/admin-users/admin-role";
import { authOptions } from "./auth-options";
import { NOT_SIGNED_IN, OWNER_NEEDS_TWO_FACTOR, roleRefusal, type ActionState } from "./action-state";

export interface SignedInAdmin extends AdminUserRecord {
  /** "admin:<email>", the actor of every audit entry this admin causes. */
  actor: string;
}

async function readSignedInAdmin(): Promise<SignedInAdmin | undefined> {
  const session = await getServerSession(authOptions);
  const email = session?.user?.email;
  if (!email) return undefined;
  const admin = await findActiveAdmin(email);
  return admin ? { ...admin, actor: adminActor(admin.email) } : undefined;
}

/** Once per request: the layout and the page share one lookup. */
export const currentAdmin = cache(readSignedInAdmin);

/** The signed-in admin, or a redirect to the sign-in page. */
export async function requireAdminPage(): Promise<SignedInAdmin> {
  const admin = await currentAdmin();
  if (!admin) redirect("/admin/login");
  return admin;
}

export type ActionGate = { admin: SignedInAdmin } | { refusal: ActionState };

/**
 * The signed-in admin when their role allows `role`, or the answer refusing the action. Owner
 * actions also need the owner to have two-factor on. Read afresh (not from the render cache): an
 * action must see the session, the role and two-factor as they are now.
 */
export async function requireAdminForAction(role: AdminRole): Promise<ActionGate> {
  const admin = await readSignedInAdmin();
  if (!admin) return { refusal: NOT_SIGNED_IN };
  if (!roleAllows(admin.role, role)) return { refusal: roleRefusal(role, admin.role) };
  if (role === "owner" && !hasTwoFactor(admin)) return { refusal: OWNER_NEEDS_TWO_FACTOR };
  return { admin };
}

/** Whether the page should offer forms of actions that need `role` (the actions check for themselves). */
export function mayUse(admin: SignedInAdmin, role: AdminRole): boolean {
  return roleAllows(admin.role, role) && (role !== "owner" || hasTwoFactor(admin));
}
