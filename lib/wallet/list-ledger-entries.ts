// GET /ledger: the account's wallet statement, newest first, one page at a time (JSON, or that
// page as CSV). The whole-range CSV statement is lib/wallet/stream-ledger-statement.ts, which
// shares the columns and the row mapping below so both CSVs read the same.
import { getPool } from "../db/pool";
import { centsToUsd } from "../money/cents-to-usd";
import type { LedgerKind } from "../generated/prisma/enums";
import { csvNumber, toCsv, type CsvCell } from "../csv/to-csv";

export interface StatementLine {
  id: number;
  type: LedgerKind;
  amountUsd: number;
  balanceAfterUsd: number;
  orderId: string | null;
  reason: string | null;
  createdAt: string;
}

/** The columns of both ledger CSVs (a page, and the streamed statement). */
export const LEDGER_CSV_HEADER = ["id", "type", "amount_usd", "balance_after_usd", "order_id", "reason", "created_at"] as const;

/** The ledger columns to select (with orders joined as o) for toStatementLine. */
export const LEDGER_LINE_COLUMNS = "l.id, l.kind, l.amount_cents, l.balance_after_cents, o.public_id, l.reason, l.created_at";

export interface LedgerLineRow {
  id: number;
  kind: LedgerKind;
  amount_cents: number;
  balance_after_cents: number;
  public_id: string | null;
  reason: string | null;
  created_at: Date;
}

export function toStatementLine(row: LedgerLineRow): StatementLine {
  return {
    id: row.id,
    type: row.kind,
    amountUsd: centsToUsd(row.amount_cents),
    balanceAfterUsd: centsToUsd(row.balance_after_cents),
    orderId: row.public_id,
    reason: row.reason,
    createdAt: row.created_at.toISOString(),
  };
}

/** One entry as CSV cells: money as plain numbers with 2 decimals, like the JSON's USD amounts. */
export function statementLineCells(e: StatementLine): CsvCell[] {
  return [e.id, e.type, csvNumber(e.amountUsd, 2), csvNumber(e.balanceAfterUsd, 2), e.orderId, e.reason, e.createdAt];
}

export async function listLedgerEntries(accountId: number, limit: number, offset: number): Promise<{ total: number; entries: StatementLine[] }> {
  const pool = getPool();
  const [page, count] = await Promise.all([
    pool.query<LedgerLineRow>(
      `SELECT ${LEDGER_LINE_COLUMNS}
         FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
        WHERE l.account_id = $1 ORDER BY l.id DESC LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    ),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM ledger_entries WHERE account_id = $1`, [accountId]),
  ]);
  return {
    total: count.rows[0].total,
    entries: page.rows.map(toStatementLine),
  };
}

export function ledgerToCsv(entries: StatementLine[]): string {
  return toCsv(LEDGER_CSV_HEADER, entries.map(statementLineCells));
}
