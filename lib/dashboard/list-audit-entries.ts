// The audit log for the dashboard: every admin action from the dashboard, the bot and scripts,
// newest first, paged by id, filtered by who, what, and on which target.
import { getPool } from "../db/pool";

export interface AuditLine {
  id: number;
  actor: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  createdAt: Date;
}

export interface AuditFilters {
  /** Substring of the actor ("admin:ops@", "telegram:12345"). */
  actor?: string;
  /** Exact action, or a prefix ending in "." ("account." for every account action). */
  action?: string;
  targetType?: string;
  targetId?: string;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listAuditEntries(
  filters: AuditFilters = {},
  options: { olderThan?: number; limit?: number } = {},
): Promise<{ entries: AuditLine[]; olderCursor?: number }> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  if (filters.actor) where.push(`actor ILIKE ${param(`%${escapeLike(filters.actor)}%`)}`);
  if (filters.action) {
    where.push(filters.action.endsWith(".") ? `action LIKE ${param(`${escapeLike(filters.action)}%`)}` : `action = ${param(filters.action)}`);
  }
  if (filters.targetType) where.push(`target_type = ${param(filters.targetType)}`);
  if (filters.targetId) where.push(`target_id = ${param(filters.targetId)}`);
  if (options.olderThan !== undefined) where.push(`id < ${param(options.olderThan)}`);
  const { rows } = await getPool().query<AuditLine>(
    `SELECT id, actor, action, target_type AS "targetType", target_id AS "targetId", details, created_at AS "createdAt"
       FROM audit_log ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY id DESC LIMIT ${param(limit + 1)}`,
    values,
  );
  const entries = rows.slice(0, limit);
  return { entries, olderCursor: rows.length > limit ? entries[entries.length - 1].id : undefined };
}

