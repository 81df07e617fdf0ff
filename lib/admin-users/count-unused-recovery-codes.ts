import { getPrisma } from "../db/prisma";

/** How many of the admin's recovery codes are still unused (the account page says). */
export function countUnusedRecoveryCodes(adminId: number): Promise<number> {
  return getPrisma().adminRecoveryCode.count({ where: { adminUserId: adminId, usedAt: null } });
}
