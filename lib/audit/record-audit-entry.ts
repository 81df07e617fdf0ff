// Every admin action, from the dashboard, the bot or a script, is written here. Pass the caller's
// transaction client so the audit row commits or rolls back with the change it describes.
import type pg from "pg";
import { getPool } from "../db/pool";

export interface AuditEntry {
  /** "admin:<email>" (dashboard), "telegram:<id>" (bot), "system" otherwise. */
  actor: string;
  /** Dotted verb, e.g. "setting.set", "account.ban", "wallet.credit". */
  action: string;
  targetType?: string;
  targetId?: string | number;
  details?: Record<string, unknown>;
}

export async function recordAuditEntry(entry: AuditEntry, client: Pick<pg.PoolClient, "query"> = getPool()): Promise<number> {
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO audit_log (actor, action, target_type, target_id, details) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [
      entry.actor,
      entry.action,
      entry.targetType ?? null,
      entry.targetId === undefined ? null : String(entry.targetId),
      entry.details === undefined ? null : JSON.stringify(entry.details),
    ],
  );
  return rows[0].id;
}
