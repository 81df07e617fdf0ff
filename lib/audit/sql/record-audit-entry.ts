// Every admin action, from the dashboard, the bot or a script, is written here. Pass the caller's
// transaction so the audit row commits or rolls back with the change it describes: a Prisma
// transaction client, or the pg client of a hot-path transaction (an admin settling an order runs
// in lib/fulfilment's raw-SQL transaction).
import type pg from "pg";
import type { Prisma } from "../../generated/prisma/client";
import { getPrisma, type PrismaDb } from "../../db/prisma";
import { sql } from "../../db/run-sql";
import { firstRow } from "../../db/first-row";

export interface AuditEntry {
  /** "admin:<email>" (dashboard), "telegram:<id>" (bot), "system" otherwise. */
  actor: string;
  /** Dotted verb, e.g. "setting.set", "account.ban", "wallet.credit". */
  action: string;
  targetType?: string;
  targetId?: string | number;
  details?: Record<string, unknown>;
}

/** Where an audit row can be written: Prisma (client or transaction) or a raw-SQL transaction's client. */
export type AuditWriter = PrismaDb | Pick<pg.PoolClient, "query">;

export async function recordAuditEntry(entry: AuditEntry, db: AuditWriter = getPrisma()): Promise<number> {
  const targetId = entry.targetId === undefined ? null : String(entry.targetId);
  if ("query" in db) {
    const { rows } = await db.query<{ id: number }>(
      sql`INSERT INTO audit_log (actor, action, target_type, target_id, details)
          VALUES (${entry.actor}, ${entry.action}, ${entry.targetType ?? null}, ${targetId},
            ${entry.details === undefined ? null : JSON.stringify(entry.details)})
          RETURNING id`,
    );
    return firstRow(rows, "INSERT INTO audit_log").id;
  }
  const row = await db.auditLog.create({
    data: {
      actor: entry.actor,
      action: entry.action,
      targetType: entry.targetType ?? null,
      targetId,
      details: entry.details === undefined ? undefined : (entry.details as Prisma.InputJsonObject),
    },
    select: { id: true },
  });
  return row.id;
}
