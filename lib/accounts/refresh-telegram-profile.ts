import { getPrisma } from "../db/prisma";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { releaseStaleUsername } from "./sql/match-telegram-username";

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
