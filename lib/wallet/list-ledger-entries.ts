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
export const LEDGER_CSV_HEADER = [
  "id",
  "type",
  "amount_usd",
  "balance_after_usd",
  "order_id",
  "reason",
  "created_at",
] as const;

/** The ledger columns to select (with orders joined as o) for toStatementLine. */
export const LEDGER_LINE_COLUMNS =
  "l.id, l.kind, l.amount_cents, l.balance_after_cents, o.public_id, l.reason, l.created_at";

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

// Each entry has the account's number account_seq (1..n without gaps, in posting order) and the
// account's row holds n (ledger_count), both written by the posting (lib/wallet/post-ledger-entry.ts).
// So one statement reads the exact total and the page from the same snapshot, and a page is a
// keyset range on the unique (account_id, account_seq) index: the same cost at any depth. Named,
// so prepared once per connection: that plan is right for every account, whatever its size.
export const LEDGER_PAGE = `
  SELECT a.ledger_count AS total, ${LEDGER_LINE_COLUMNS}
    FROM accounts a
    LEFT JOIN LATERAL (
      SELECT * FROM ledger_entries
       WHERE account_id = a.id AND account_seq <= a.ledger_count - $3::int
       ORDER BY account_seq DESC LIMIT $2
    ) l ON true
    LEFT JOIN orders o ON o.id = l.order_id AND o.account_id = a.id
   WHERE a.id = $1
   ORDER BY l.account_seq DESC`;

export async function listLedgerEntries(
  accountId: number,
  limit: number,
  offset: number,
): Promise<{ total: number; entries: StatementLine[] }> {
  const { rows } = await getPool().query<LedgerLineRow & { total: number }>({
    name: "ledger-page",
    text: LEDGER_PAGE,
    values: [accountId, limit, offset],
  });
  // One row even when the page is empty (the account's row, with null entry columns).
  return {
    total: rows[0]?.total ?? 0,
    entries: rows.filter((row) => row.id !== null).map(toStatementLine),
  };
}

export function ledgerToCsv(entries: StatementLine[]): string {
  return toCsv(LEDGER_CSV_HEADER, entries.map(statementLineCells));
}
