import { getPrisma } from "../db/prisma";
import { ADMIN_USER_SELECT, normaliseAdminEmail, type AdminUserRecord } from "./admin-user-record";

/**
 * The admin behind a dashboard session, if they still exist and are not disabled. Every page and
 * action asks, so disabling an admin (or deleting the row) ends their sessions at once instead of
 * when the session cookie expires.
 */
export async function findActiveAdmin(email: string): Promise<AdminUserRecord | undefined> {
  const admin = await getPrisma().adminUser.findFirst({
    where: { email: normaliseAdminEmail(email), disabled: false },
    select: ADMIN_USER_SELECT,
  });
  return admin ?? undefined;
}
