// The only way dashboard code learns who is signed in. Pages call requireAdminPage (redirects to
// the sign-in page, or to the two-factor enrolment for a session without a second factor); server
// actions call requireAdminForAction with the role they need and refuse whoever lacks it: an action
// is a public POST endpoint, so it never trusts that its page checked.
import { cache } from "react";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth/next";
import { findActiveAdmin } from "@/lib/admin-users/find-active-admin";
import { adminActor, hasTwoFactor, type AdminUserRecord } from "@/lib/admin-users/admin-user-record";
import { roleAllows, type AdminRole } from "@/lib/admin-users/admin-role";
import { secondFactorRecent, signedInSinceSessionsEnded, type SessionClaims } from "@/lib/admin-sign-in/session-policy";
import { authOptions } from "./auth-options";
import {
  NEEDS_SECOND_FACTOR_SESSION,
  NEEDS_STEP_UP,
  NOT_SIGNED_IN,
  roleRefusal,
  type ActionState,
} from "./action-state";

export interface SignedInAdmin extends AdminUserRecord {
  /** "admin:<email>", the actor of every audit entry this admin causes. */
  actor: string;
  /** How this session signed in: from the session itself, never from the admin's row. */
  session: SessionClaims;
}

/** The enrolment page: where a session without a second factor is sent. */
export const TWO_FACTOR_SETUP_PATH = "/admin/two-factor-setup";

/**
 * The signed-in admin whatever their session's second factor: for the enrolment and the step-up
 * alone, which check it themselves.
 */
export async function readSignedInAdmin(): Promise<SignedInAdmin | undefined> {
  const session = await getServerSession(authOptions);
  const email = session?.user?.email;
  if (!email || !session.claims) return undefined;
  const admin = await findActiveAdmin(email);
  if (!admin || !signedInSinceSessionsEnded(session.claims, admin.sessionsValidFrom)) return undefined;
  return { ...admin, actor: adminActor(admin.email), session: session.claims };
}

/** Once per request: the layout and the page share one lookup. */
export const currentAdmin = cache(readSignedInAdmin);

/** Whether the session signed in (or enrolled) with the second factor. */
export function signedInWithSecondFactor(admin: SignedInAdmin): boolean {
  return admin.session.secondFactorAt !== null;
}

/**
 * Whether the dashboard opens to this session: it signed in with the second factor, and the admin
 * still has two-factor on (one turned off or reset enrols again before going on).
 */
export function dashboardOpen(admin: SignedInAdmin): boolean {
  return signedInWithSecondFactor(admin) && hasTwoFactor(admin);
}

/** The signed-in admin, or a redirect to the sign-in page (or to the enrolment). */
export async function requireAdminPage(): Promise<SignedInAdmin> {
  const admin = await currentAdmin();
  if (!admin) redirect("/admin/login");
  if (!dashboardOpen(admin)) redirect(TWO_FACTOR_SETUP_PATH);
  return admin;
}

export type ActionGate = { admin: SignedInAdmin } | { refusal: ActionState };

/**
 * The signed-in admin when the dashboard is open to their session (dashboardOpen) and their role allows
 * `role`, or the answer refusing the action. With `recent` (money and admin changes) the second
 * factor must also have been proved within the step-up window, or the answer asks for a code. Read
 * afresh (not from the render cache): an action must see the session and the role as they are now.
 */
export async function requireAdminForAction(role: AdminRole, options: { recent?: boolean } = {}): Promise<ActionGate> {
  const admin = await readSignedInAdmin();
  if (!admin) return { refusal: NOT_SIGNED_IN };
  if (!dashboardOpen(admin)) return { refusal: NEEDS_SECOND_FACTOR_SESSION };
  if (!roleAllows(admin.role, role)) return { refusal: roleRefusal(role, admin.role) };
  if (options.recent && !secondFactorRecent(admin.session)) return { refusal: NEEDS_STEP_UP };
  return { admin };
}

/** Whether the page should offer forms of actions that need `role` (the actions check for themselves). */
export function mayUse(admin: SignedInAdmin, role: AdminRole): boolean {
  return roleAllows(admin.role, role) && dashboardOpen(admin);
}
