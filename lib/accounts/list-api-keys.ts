import { getPool } from "../db/pool";
import type { Queryable } from "./account-record";

export interface ApiKeySummary {
  id: number;
  /** The only part of a key ever shown after /newkey. */
  prefix: string;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  requireIpAllowlist: boolean;
  /** Normalised CIDR entries, sorted. */
  cidrs: string[];
}

/** The account's active (not revoked) keys with their IP allowlists, oldest first. */
export async function listApiKeys(accountId: number, db: Queryable = getPool()): Promise<ApiKeySummary[]> {
  const { rows } = await db.query<ApiKeySummary>(
    `SELECT k.id, k.prefix, k.name, k.created_at AS "createdAt", k.last_used_at AS "lastUsedAt",
            k.require_ip_allowlist AS "requireIpAllowlist",
            COALESCE(array_agg(e.cidr ORDER BY e.cidr) FILTER (WHERE e.cidr IS NOT NULL), '{}') AS cidrs
       FROM api_keys k LEFT JOIN ip_allow_entries e ON e.api_key_id = k.id
      WHERE k.account_id = $1 AND k.revoked_at IS NULL
      GROUP BY k.id
      ORDER BY k.id`,
    [accountId],
  );
  return rows;
}
