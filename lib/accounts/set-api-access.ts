import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";

/**
 * The holder's own switch for API access (/api on|off). Off makes every API call answer
 * API_DISABLED. An admin block (set-admin-api-block.ts) is a separate flag the holder cannot undo.
 */
export async function setApiAccess(
  accountId: number,
  enabled: boolean,
  actor: string,
): Promise<{ status: "updated" | "unchanged"; apiDisabledByAdmin: boolean } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const before = await client.query<{ apiEnabled: boolean; apiDisabledByAdmin: boolean }>(
      `SELECT api_enabled AS "apiEnabled", api_disabled_by_admin AS "apiDisabledByAdmin" FROM accounts WHERE id = $1 FOR UPDATE`,
      [accountId],
    );
    if (before.rowCount === 0) return { status: "not_found" as const };
    const { apiEnabled, apiDisabledByAdmin } = before.rows[0];
    if (apiEnabled !== enabled) {
      await client.query(`UPDATE accounts SET api_enabled = $2, updated_at = now() WHERE id = $1`, [accountId, enabled]);
    }
    await recordAuditEntry(
      {
        actor,
        action: enabled ? "account.api_on" : "account.api_off",
        targetType: "account",
        targetId: accountId,
        details: { changed: apiEnabled !== enabled },
      },
      client,
    );
    return { status: apiEnabled !== enabled ? ("updated" as const) : ("unchanged" as const), apiDisabledByAdmin };
  });
}
