// Serialises changes of admins' roles and disabled flags, so two owners demoting each other at once
// cannot both pass the last-owner check. Raw SQL: Prisma has no advisory locks.
import type { PrismaTx } from "../../db/prisma";

export async function lockAdminUsers(tx: PrismaTx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('admin_users'))`;
}
