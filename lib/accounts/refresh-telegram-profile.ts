import { getPrisma, type PrismaTx } from "../db/prisma";
import { toAccountRecord, type AccountRecord } from "./account-record";

/**
 * Keeps the stored @username and display name in step with Telegram (users rename themselves, and
 * admins name accounts by @username). Writes only when something changed; not an audited action.
 */
export async function refreshTelegramProfile(input: {
  telegramId: number;
  username: string | null;
  displayName: string | null;
}): Promise<AccountRecord | undefined> {
  return getPrisma().$transaction(async (tx) => {
    const current = await tx.account.findUnique({ where: { telegramId: BigInt(input.telegramId) } });
    if (!current || (current.telegramUsername === input.username && current.displayName === input.displayName))
      return undefined;
    const row = await tx.account.update({
      where: { id: current.id },
      data: { telegramUsername: input.username, displayName: input.displayName },
    });
    await releaseStaleUsername(tx, input.telegramId, input.username);
    return toAccountRecord(row);
  });
}

/**
 * A Telegram username belongs to one user at a time. When a user shows up with one, any other
 * account still storing it is stale (its owner renamed), so /credit @name must not find it.
 * Raw SQL for the case-insensitive match (see accountIdsByUsername).
 */
export async function releaseStaleUsername(tx: PrismaTx, telegramId: number, username: string | null): Promise<void> {
  if (!username) return;
  await tx.$executeRaw`
    UPDATE accounts SET telegram_username = NULL, updated_at = now()
     WHERE lower(telegram_username) = lower(${username}) AND telegram_id IS DISTINCT FROM ${BigInt(telegramId)}`;
}
