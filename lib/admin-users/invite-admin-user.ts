import { createAdminUser, type CreateAdminUserResult } from "./create-admin-user";
import { generateAdminPassword } from "./generate-admin-password";
import type { AdminRole } from "./admin-role";

export type InviteAdminUserResult =
  | (Extract<CreateAdminUserResult, { status: "created" }> & { password: string })
  | Exclude<CreateAdminUserResult, { status: "created" }>;

/**
 * An owner adds an admin from the dashboard: created with `role` and a generated password, which is
 * returned to be shown once and handed over (audited as admin_user.create by the inviting owner).
 */
export async function inviteAdminUser(input: {
  email: string;
  role: AdminRole;
  actor: string;
}): Promise<InviteAdminUserResult> {
  const password = generateAdminPassword();
  const result = await createAdminUser({ email: input.email, password, role: input.role, actor: input.actor });
  return result.status === "created" ? { ...result, password } : result;
}
