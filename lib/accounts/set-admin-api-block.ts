import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { accountColumns, type AccountRecord } from "./account-record";

/**
 * An admin's block of API access (/block, /unblock): API calls answer API_DISABLED_BY_ADMIN while
 * it is set, whatever the holder's own /api switch says.
 */
export async function setAdminApiBlock(input: {
  accountId: number;
  blocked: boolean;
  actor: string;
}): Promise<{ status: "updated" | "unchanged"; account: AccountRecord } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const before = await client.query<{ blocked: boolean }>(`SELECT api_disabled_by_admin AS blocked FROM accounts WHERE id = $1 FOR UPDATE`, [
      input.accountId,
    ]);
    if (before.rowCount === 0) return { status: "not_found" as const };
    const changed = before.rows[0].blocked !== input.blocked;
    const { rows } = await client.query<AccountRecord>(
      `UPDATE accounts SET api_disabled_by_admin = $2, updated_at = CASE WHEN $3 THEN now() ELSE updated_at END
        WHERE id = $1 RETURNING ${accountColumns()}`,
      [input.accountId, input.blocked, changed],
    );
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.blocked ? "account.api_block" : "account.api_unblock",
        targetType: "account",
        targetId: input.accountId,
        details: { changed },
      },
      client,
    );
    return { status: changed ? ("updated" as const) : ("unchanged" as const), account: rows[0] };
  });
}
