import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";

/**
 * Revokes one of the account's own keys by its shown prefix. The account id scopes the lookup, so
 * a holder can never revoke someone else's key even by guessing a prefix. Takes effect on the next
 * API request (keys are not cached).
 */
export async function revokeApiKey(
  accountId: number,
  prefix: string,
  actor: string,
): Promise<{ status: "revoked"; keyId: number; prefix: string } | { status: "not_found" }> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<{ id: number; prefix: string }>(
      `UPDATE api_keys SET revoked_at = now()
        WHERE account_id = $1 AND prefix = $2 AND revoked_at IS NULL
        RETURNING id, prefix`,
      [accountId, prefix],
    );
    if (rows.length === 0) return { status: "not_found" as const };
    await recordAuditEntry(
      { actor, action: "api_key.revoke", targetType: "api_key", targetId: rows[0].id, details: { accountId, prefix } },
      client,
    );
    return { status: "revoked" as const, keyId: rows[0].id, prefix: rows[0].prefix };
  });
}
