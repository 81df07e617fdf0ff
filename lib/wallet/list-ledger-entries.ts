// GET /ledger: the account's wallet statement, newest first.
import { getPool } from "../db/pool";
import { centsToUsd } from "../money/cents-to-usd";
import type { LedgerKind } from "../generated/prisma/enums";
import { csvNumber, toCsv } from "../csv/to-csv";

export interface StatementLine {
  id: number;
  type: LedgerKind;
  amountUsd: number;
  balanceAfterUsd: number;
  orderId: string | null;
  reason: string | null;
  createdAt: string;
}

export async function listLedgerEntries(accountId: number, limit: number, offset: number): Promise<{ total: number; entries: StatementLine[] }> {
  const pool = getPool();
  const [page, count] = await Promise.all([
    pool.query(
      `SELECT l.id, l.kind, l.amount_cents, l.balance_after_cents, o.public_id, l.reason, l.created_at
         FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
        WHERE l.account_id = $1 ORDER BY l.id DESC LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    ),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM ledger_entries WHERE account_id = $1`, [accountId]),
  ]);
  return {
    total: count.rows[0].total,
    entries: page.rows.map((row) => ({
      id: row.id,
      type: row.kind,
      amountUsd: centsToUsd(row.amount_cents),
      balanceAfterUsd: centsToUsd(row.balance_after_cents),
      orderId: row.public_id,
      reason: row.reason,
      createdAt: row.created_at.toISOString(),
    })),
  };
}

export function ledgerToCsv(entries: StatementLine[]): string {
  return toCsv(
    ["id", "type", "amount_usd", "balance_after_usd", "order_id", "reason", "created_at"],
    entries.map((e) => [e.id, e.type, csvNumber(e.amountUsd, 2), csvNumber(e.balanceAfterUsd, 2), e.orderId, e.reason, e.createdAt]),
  );
}
