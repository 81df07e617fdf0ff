import { withTransaction } from "../db/pool";
import { accountColumns, type AccountRecord, type Queryable } from "./account-record";

/**
 * Keeps the stored @username and display name in step with Telegram (users rename themselves, and
 * admins name accounts by @username). Writes only when something changed; not an audited action.
 */
export async function refreshTelegramProfile(input: {
  telegramId: number;
  username: string | null;
  displayName: string | null;
}): Promise<AccountRecord | undefined> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<AccountRecord>(
      `UPDATE accounts SET telegram_username = $2, display_name = $3, updated_at = now()
        WHERE telegram_id = $1 AND (telegram_username IS DISTINCT FROM $2 OR display_name IS DISTINCT FROM $3)
        RETURNING ${accountColumns()}`,
      [input.telegramId, input.username, input.displayName],
    );
    if (rows[0]) await releaseStaleUsername(client, input.telegramId, input.username);
    return rows[0];
  });
}

/**
 * A Telegram username belongs to one user at a time. When a user shows up with one, any other
 * account still storing it is stale (its owner renamed), so /credit @name must not find it.
 */
export async function releaseStaleUsername(db: Queryable, telegramId: number, username: string | null): Promise<void> {
  if (!username) return;
  await db.query(
    `UPDATE accounts SET telegram_username = NULL, updated_at = now()
      WHERE lower(telegram_username) = lower($2) AND telegram_id IS DISTINCT FROM $1`,
    [telegramId, username],
  );
}
