import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { accountColumns, type AccountRecord } from "./account-record";

/** Lifts a ban. Audited even when the account was not banned, so every admin action leaves a trace. */
export async function unbanAccount(input: {
  accountId: number;
  actor: string;
}): Promise<{ status: "unbanned" | "not_banned"; account: AccountRecord } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const before = await client.query<{ bannedAt: Date | null }>(`SELECT banned_at AS "bannedAt" FROM accounts WHERE id = $1 FOR UPDATE`, [
      input.accountId,
    ]);
    if (before.rowCount === 0) return { status: "not_found" as const };
    const wasBanned = before.rows[0].bannedAt !== null;
    const { rows } = await client.query<AccountRecord>(
      `UPDATE accounts SET banned_at = NULL, ban_reason = NULL, updated_at = now() WHERE id = $1 RETURNING ${accountColumns()}`,
      [input.accountId],
    );
    await recordAuditEntry(
      { actor: input.actor, action: "account.unban", targetType: "account", targetId: input.accountId, details: { wasBanned } },
      client,
    );
    return { status: wasBanned ? ("unbanned" as const) : ("not_banned" as const), account: rows[0] };
  });
}
