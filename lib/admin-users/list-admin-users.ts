import { getPrisma } from "../db/prisma";
import { ADMIN_USER_SELECT, type AdminUserRecord } from "./admin-user-record";

/** Every dashboard admin, oldest first (the admins page). */
export async function listAdminUsers(): Promise<AdminUserRecord[]> {
  return getPrisma().adminUser.findMany({ select: ADMIN_USER_SELECT, orderBy: { id: "asc" } });
}
