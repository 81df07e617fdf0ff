import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { accountColumns, type AccountRecord } from "./account-record";

/** Bans an account: every API call answers ACCOUNT_BANNED until unbanned. Audited even when already banned. */
export async function banAccount(input: {
  accountId: number;
  actor: string;
  reason?: string | null;
}): Promise<{ status: "banned" | "already_banned"; account: AccountRecord } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const before = await client.query<{ bannedAt: Date | null }>(`SELECT banned_at AS "bannedAt" FROM accounts WHERE id = $1 FOR UPDATE`, [
      input.accountId,
    ]);
    if (before.rowCount === 0) return { status: "not_found" as const };
    const alreadyBanned = before.rows[0].bannedAt !== null;
    const { rows } = await client.query<AccountRecord>(
      `UPDATE accounts SET banned_at = COALESCE(banned_at, now()), ban_reason = $2, updated_at = now()
        WHERE id = $1 RETURNING ${accountColumns()}`,
      [input.accountId, input.reason ?? null],
    );
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "account.ban",
        targetType: "account",
        targetId: input.accountId,
        details: { reason: input.reason ?? null, alreadyBanned },
      },
      client,
    );
    return { status: alreadyBanned ? ("already_banned" as const) : ("banned" as const), account: rows[0] };
  });
}
