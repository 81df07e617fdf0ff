// The only way dashboard code learns who is signed in. Pages call requireAdminPage (redirects to
// the sign-in page); server actions call requireAdminForAction themselves and refuse without an
// admin: an action is a public POST endpoint, so it never trusts that its page checked.
import { cache } from "react";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth/next";
import { findActiveAdmin } from "@/lib/admin-users/find-active-admin";
import { adminActor, type AdminUserRecord } from "@/lib/admin-users/admin-user-record";
import { authOptions } from "./auth-options";

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

/** Read afresh (not from the render cache): an action must see the session as it is now. */
export function requireAdminForAction(): Promise<SignedInAdmin | undefined> {
  return readSignedInAdmin();
}
