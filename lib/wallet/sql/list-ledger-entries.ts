// GET /ledger: the account's wallet statement, newest first, one page at a time (JSON, or that
// page as CSV). The whole-range CSV statement is lib/wallet/sql/stream-ledger-statement.ts, which
// shares the row mapping below so both CSVs read the same.
import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { centsToUsd } from "../../money/cents-to-usd";
import type { LedgerKind } from "../../generated/prisma/enums";
import { csvNumber, toCsv, type CsvCell } from "../../csv/to-csv";

export interface StatementLine {
  /** The entry's number within the account (1..n in posting order), not the table's global id. */
  id: number;
  type: LedgerKind;
  amountUsd: number;
  balanceAfterUsd: number;
  orderId: string | null;
  reason: string | null;
  createdAt: string;
}

/** The columns of both ledger CSVs (a page, and the streamed statement). */
export const LEDGER_CSV_HEADER = [
  "id",
  "type",
  "amount_usd",
  "balance_after_usd",
  "order_id",
  "reason",
  "created_at",
] as const;

/** A ledger entry as both ledger statements select it (with its order's public id). */
export interface LedgerLineRow {
  id: number;
  account_seq: number;
  kind: LedgerKind;
  amount_cents: number;
  balance_after_cents: number;
  public_id: string | null;
  reason: string | null;
  created_at: Date;
}

export function toStatementLine(row: LedgerLineRow): StatementLine {
  // ledger_entries.id counts every account's entries, so showing it would tell a holder how much
  // the whole platform moved between two of theirs.
  return {
    id: row.account_seq,
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

export async function listLedgerEntries(
  accountId: number,
  limit: number,
  offset: number,
): Promise<{ total: number; entries: StatementLine[] }> {
  // Each entry has the account's number account_seq (1..n without gaps, in posting order) and the
  // account's row holds n (ledger_count), both written by post_ledger_entry. So one statement reads
  // the exact total and the page from the same snapshot, and a page is a keyset range on the unique
  // (account_id, account_seq) index: the same cost at any depth, and a plan right for every account.
  const { rows } = await getPool().query<LedgerLineRow & { total: number }>(
    prepared(
      "ledger-page",
      sql`SELECT a.ledger_count AS total,
                 l.id, l.account_seq, l.kind, l.amount_cents, l.balance_after_cents, o.public_id, l.reason, l.created_at
            FROM accounts a
            LEFT JOIN LATERAL (
              SELECT * FROM ledger_entries
               WHERE account_id = a.id AND account_seq <= a.ledger_count - ${offset}::int
               ORDER BY account_seq DESC LIMIT ${limit}
            ) l ON true
            LEFT JOIN orders o ON o.id = l.order_id AND o.account_id = a.id
           WHERE a.id = ${accountId}
           ORDER BY l.account_seq DESC`,
    ),
  );
  // One row even when the page is empty (the account's row, with null entry columns).
  return {
    total: rows[0]?.total ?? 0,
    entries: rows.filter((row) => row.id !== null).map(toStatementLine),
  };
}

export function ledgerToCsv(entries: StatementLine[]): string {
  return toCsv(LEDGER_CSV_HEADER, entries.map(statementLineCells));
}
