import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { accountColumns, type AccountRecord } from "./account-record";
import { releaseStaleUsername } from "./refresh-telegram-profile";

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
  return withTransaction(async (client) => {
    // ON CONFLICT makes concurrent /start updates safe; xmax = 0 only on a freshly inserted row.
    const { rows } = await client.query<AccountRecord & { created: boolean }>(
      `INSERT INTO accounts (telegram_id, telegram_username, display_name)
       VALUES ($1, $2, $3)
       ON CONFLICT (telegram_id) DO UPDATE
         SET telegram_username = EXCLUDED.telegram_username,
             display_name = EXCLUDED.display_name,
             updated_at = CASE
               WHEN accounts.telegram_username IS DISTINCT FROM EXCLUDED.telegram_username
                 OR accounts.display_name IS DISTINCT FROM EXCLUDED.display_name THEN now()
               ELSE accounts.updated_at END
       RETURNING ${accountColumns()}, (xmax = 0) AS created`,
      [identity.telegramId, identity.username ?? null, identity.displayName ?? null],
    );
    const { created, ...account } = rows[0];
    await releaseStaleUsername(client, identity.telegramId, identity.username ?? null);
    if (created) {
      await recordAuditEntry(
        { actor, action: "account.register", targetType: "account", targetId: account.id, details: { telegramId: identity.telegramId } },
        client,
      );
    }
    return { account, created };
  });
}
