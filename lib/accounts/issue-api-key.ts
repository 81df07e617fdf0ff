import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { generateApiKey } from "../auth/api-key-format";

/** Active keys per account. Each key has its own allowlist; more than a handful is a mistake or abuse. */
export const MAX_ACTIVE_KEYS = 10;

export type IssueApiKeyResult =
  | { status: "created"; id: number; key: string; prefix: string }
  | { status: "limit_reached"; limit: number }
  | { status: "not_found" };

/**
 * Creates an API key for the account. The plain key is in the result only: the database keeps its
 * SHA-256 hash and the audit log its prefix, so the caller must show it once and forget it.
 */
export async function issueApiKey(accountId: number, actor: string): Promise<IssueApiKeyResult> {
  return withTransaction(async (client) => {
    // Locking the account row serialises concurrent /newkey so the limit holds.
    const account = await client.query(`SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, [accountId]);
    if (account.rowCount === 0) return { status: "not_found" as const };
    const { rows: counted } = await client.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL`,
      [accountId],
    );
    if (counted[0].count >= MAX_ACTIVE_KEYS) return { status: "limit_reached" as const, limit: MAX_ACTIVE_KEYS };
    const generated = generateApiKey();
    const { rows } = await client.query<{ id: number }>(
      `INSERT INTO api_keys (account_id, key_hash, prefix) VALUES ($1, $2, $3) RETURNING id`,
      [accountId, generated.hash, generated.prefix],
    );
    await recordAuditEntry(
      { actor, action: "api_key.create", targetType: "api_key", targetId: rows[0].id, details: { accountId, prefix: generated.prefix } },
      client,
    );
    return { status: "created" as const, id: rows[0].id, key: generated.key, prefix: generated.prefix };
  });
}
