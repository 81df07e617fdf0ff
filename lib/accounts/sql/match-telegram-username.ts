// Telegram usernames compared case-insensitively, as Telegram does. Raw SQL: Prisma's
// case-insensitive `equals` is an ILIKE that reads the "_" of usernames as a wildcard ("a_b" would
// find "axb").
import type { PrismaDb, PrismaTx } from "../../db/prisma";

/** Ids of the accounts storing this Telegram username. */
export async function accountIdsByUsername(username: string, db: PrismaDb, limit = 5): Promise<number[]> {
  const rows = await db.$queryRaw<{ id: number }[]>`
    SELECT id FROM accounts WHERE lower(telegram_username) = lower(${username}) ORDER BY id LIMIT ${limit}`;
  return rows.map((row) => row.id);
}

/**
 * A Telegram username belongs to one user at a time. When a user shows up with one, any other
 * account still storing it is stale (its owner renamed), so /credit @name must not find it.
 */
export async function releaseStaleUsername(tx: PrismaTx, telegramId: number, username: string | null): Promise<void> {
  if (!username) return;
  await tx.$executeRaw`
    UPDATE accounts SET telegram_username = NULL, updated_at = now()
     WHERE lower(telegram_username) = lower(${username}) AND telegram_id IS DISTINCT FROM ${BigInt(telegramId)}`;
}
