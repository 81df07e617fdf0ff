import type { PrismaDb } from "../db/prisma";

/** Owners who are not disabled: the dashboard must always keep one. */
export function countActiveOwners(db: PrismaDb): Promise<number> {
  return db.adminUser.count({ where: { role: "owner", disabled: false } });
}
