import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toAccountRecord, type AccountRecord } from "./account-record";
import { releaseStaleUsername } from "./sql/match-telegram-username";

export interface TelegramIdentity {
  telegramId: number;
  username?: string | null;
  displayName?: string | null;
}

/**
 * Registers a Telegram user as an account, or returns the existing one (idempotent: /start may be
 * sent any number of times, concurrently too). The stored username and display name are refreshed,
 * because admins name accounts by @username.
 */
export async function registerTelegramAccount(
  identity: TelegramIdentity,
  actor: string,
): Promise<{ account: AccountRecord; created: boolean }> {
  const telegramId = BigInt(identity.telegramId);
  const username = identity.username ?? null;
  const displayName = identity.displayName ?? null;
  return getPrisma().$transaction(async (tx) => {
    // INSERT ... ON CONFLICT DO NOTHING: of concurrent /start updates exactly one inserts (count 1),
    // the others wait on the unique index and insert nothing.
    const { count } = await tx.account.createMany({
      data: [{ telegramId, telegramUsername: username, displayName }],
      skipDuplicates: true,
    });
    const created = count === 1;
    let row = await tx.account.findUniqueOrThrow({ where: { telegramId } });
    if (!created && (row.telegramUsername !== username || row.displayName !== displayName)) {
      row = await tx.account.update({ where: { id: row.id }, data: { telegramUsername: username, displayName } });
    }
    await releaseStaleUsername(tx, identity.telegramId, username);
    if (created) {
      await recordAuditEntry(
        {
          actor,
          action: "account.register",
          targetType: "account",
          targetId: row.id,
          details: { telegramId: identity.telegramId },
        },
        tx,
      );
    }
    return { account: toAccountRecord(row), created };
  });
}
