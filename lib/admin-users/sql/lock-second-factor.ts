// Serialises the second-factor checks of one admin across every web instance, so the wrong codes
// counted before a check are all the ones made: parallel guesses cannot slip past the limit.
// Raw SQL: Prisma has no advisory locks.
import type { PrismaTx } from "../../db/prisma";

/** Takes the admin's lock until the transaction ends; resolves with the database's clock then. */
export async function lockSecondFactor(tx: PrismaTx, adminId: number): Promise<Date> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('admin_second_factor'), ${adminId}::int)`;
  const [row] = await tx.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  return row!.now;
}
