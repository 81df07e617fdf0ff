// A long ledger for an account, written in one SQL statement (generate_series) so a test can have
// thousands of entries in seconds. The entries keep every books rule: credits and negative
// adjustments whose balance_after is the running sum and never negative, and the account's balance
// and total credited set to match, so expectBooksBalance still holds afterwards; entry i is the
// account's ledger number i (account_seq) and the account's ledger_count is the count, as posting
// would have left them, with ledger_last_at at the last entry's date, so a later posting is dated
// no earlier.
import { sql, sqlRow } from "./db";

export interface LedgerHistory {
  /** Entry i (1-based) is created at start + (i - 1) * stepSeconds. */
  start: Date;
  stepSeconds: number;
  count: number;
  /** Padding appended to each entry's reason, to make rows as wide as a test needs. */
  reasonPadding?: number;
}

export async function insertLedgerHistory(accountId: number, history: LedgerHistory): Promise<void> {
  const { entries } = await sqlRow<{ entries: number }>(
    `SELECT count(*)::int AS entries FROM ledger_entries WHERE account_id = $1`,
    [accountId],
  );
  if (entries !== 0)
    throw new Error(`account ${accountId} already has ledger entries: the history must start from zero`);
  // Every third entry takes 1-50 cents back; the two credits before it bring in at least 200.
  await sql(
    `WITH moves AS (
       SELECT i, CASE WHEN i % 3 = 0 THEN -(1 + i % 50) ELSE 100 + i % 37 END AS amount
         FROM generate_series(1, $2::int) AS i)
     INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, actor, reason, created_at, account_seq)
     SELECT $1, CASE WHEN amount > 0 THEN 'credit' ELSE 'adjustment' END::"LedgerKind", amount,
            sum(amount) OVER (ORDER BY i), 'test',
            'history ' || i || repeat('.', $5::int),
            $3::timestamptz + (i - 1) * make_interval(secs => $4::int), i
       FROM moves ORDER BY i`,
    [accountId, history.count, history.start, history.stepSeconds, history.reasonPadding ?? 0],
  );
  await sql(
    `UPDATE accounts SET
       balance_cents = (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries WHERE account_id = $1),
       total_credited_cents = (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries WHERE account_id = $1 AND kind = 'credit'),
       ledger_count = (SELECT count(*) FROM ledger_entries WHERE account_id = $1),
       ledger_last_at = (SELECT max(created_at) FROM ledger_entries WHERE account_id = $1)
     WHERE id = $1`,
    [accountId],
  );
}

export interface StatementCsv {
  header: string;
  opening: { cents: number; at: string };
  closing: { cents: number; at: string };
  entries: {
    id: number;
    type: string;
    amountCents: number;
    balanceAfterCents: number;
    orderId: string;
    reason: string;
    createdAt: string;
  }[];
}

/** Cents from a plain "12.34" / "-0.99" cell. */
function cents(cell: string): number {
  if (!/^-?\d+\.\d\d$/.test(cell)) throw new Error(`not a money cell: ${cell}`);
  return Math.round(Number(cell) * 100);
}

/** Splits one CSV line of quoted cells (the service quotes every cell). */
function cells(line: string): string[] {
  return [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"'));
}

/** Reads a statement CSV, checking its shape: a header, an opening line, entries, a closing line. */
export function parseStatementCsv(text: string): StatementCsv {
  if (!text.endsWith("\r\n")) throw new Error("the statement does not end with a line break: truncated?");
  const lines = text.slice(0, -2).split("\r\n");
  const [header = "", openingLine = "", ...rest] = lines;
  const closingLine = rest.pop();
  const opening = cells(openingLine);
  const closing = cells(closingLine ?? "");
  if (opening[1] !== "opening_balance") throw new Error(`second line is not the opening balance: ${openingLine}`);
  if (closing[1] !== "closing_balance") throw new Error(`last line is not the closing balance: ${closingLine}`);
  return {
    header,
    opening: { cents: cents(opening[3]!), at: opening[6]! },
    closing: { cents: cents(closing[3]!), at: closing[6]! },
    entries: rest.map((line) => {
      const c = cells(line);
      return {
        id: Number(c[0]),
        type: c[1]!,
        amountCents: cents(c[2]!),
        balanceAfterCents: cents(c[3]!),
        orderId: c[4]!,
        reason: c[5]!,
        createdAt: c[6]!,
      };
    }),
  };
}
