// The account as the bot and the dashboard see it, read with one column list so every lookup
// returns the same shape. pg reads BIGINT as number (lib/db/pool.ts), so telegram ids and cents
// arrive as numbers; both stay far below 2^53.
import type pg from "pg";

/** Anything that runs a query: the pool, or a transaction's client. */
export type Queryable = Pick<pg.PoolClient, "query">;

export interface AccountRecord {
  id: number;
  telegramId: number | null;
  telegramUsername: string | null;
  displayName: string | null;
  apiEnabled: boolean;
  apiDisabledByAdmin: boolean;
  bannedAt: Date | null;
  banReason: string | null;
  restrictedUntil: Date | null;
  restrictReason: string | null;
  isAdmin: boolean;
  balanceCents: number;
  totalCreditedCents: number;
  createdAt: Date;
}

/** Selects an AccountRecord from `accounts` (aliased or not). */
export function accountColumns(alias = "accounts"): string {
  return `${alias}.id, ${alias}.telegram_id AS "telegramId", ${alias}.telegram_username AS "telegramUsername",
    ${alias}.display_name AS "displayName", ${alias}.api_enabled AS "apiEnabled",
    ${alias}.api_disabled_by_admin AS "apiDisabledByAdmin", ${alias}.banned_at AS "bannedAt",
    ${alias}.ban_reason AS "banReason", ${alias}.restricted_until AS "restrictedUntil",
    ${alias}.restrict_reason AS "restrictReason", ${alias}.is_admin AS "isAdmin",
    ${alias}.balance_cents AS "balanceCents", ${alias}.total_credited_cents AS "totalCreditedCents",
    ${alias}.created_at AS "createdAt"`;
}
