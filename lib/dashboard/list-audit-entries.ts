// The audit log for the dashboard: every admin action from the dashboard, the bot and scripts,
// newest first, paged by id, filtered by who, what, and on which target.
import { getPrisma } from "../db/prisma";
import type { Prisma } from "../generated/prisma/client";
import { escapeLike } from "./escape-like";

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

export async function listAuditEntries(
  filters: AuditFilters = {},
  options: { olderThan?: number; limit?: number } = {},
): Promise<{ entries: AuditLine[]; olderCursor?: number }> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  const where: Prisma.AuditLogWhereInput = {
    actor: filters.actor ? { contains: escapeLike(filters.actor), mode: "insensitive" } : undefined,
    action: filters.action
      ? filters.action.endsWith(".")
        ? { startsWith: escapeLike(filters.action) }
        : filters.action
      : undefined,
    targetType: filters.targetType || undefined,
    targetId: filters.targetId || undefined,
    id: options.olderThan !== undefined ? { lt: options.olderThan } : undefined,
  };
  const entries = await getPrisma().auditLog.findMany({ where, orderBy: { id: "desc" }, take: limit + 1 });
  const page = entries.slice(0, limit);
  return { entries: page, olderCursor: entries.length > limit ? page.at(-1)?.id : undefined };
}
