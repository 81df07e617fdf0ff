// Serialises writers of one setting key, including the first insert (a row lock cannot, before the
// row exists). Raw SQL: Prisma has no advisory locks.
import type { PrismaTx } from "../../db/prisma";

export async function lockSetting(tx: PrismaTx, key: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('settings:' || ${key}))`;
}
