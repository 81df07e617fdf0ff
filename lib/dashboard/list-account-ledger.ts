// An account's wallet statement for the dashboard: newest first, paged by entry id. Each entry
// carries the balance right after it (written in the same transaction as the entry): that is the
// running balance. Each line is also checked against the entry before it, so a gap would show.
import { getPool } from "../db/pool";

export interface AccountLedgerLine {
  id: number;
  kind: "credit" | "debit" | "refund" | "adjustment";
  amountCents: number;
  balanceAfterCents: number;
  /** The previous entry's balance (0 before the first) plus this amount equals this balance. */
  continuous: boolean;
  orderId: number | null;
  orderPublicId: string | null;
  actor: string;
  reason: string | null;
  createdAt: Date;
}

export async function listAccountLedger(
  accountId: number,
  options: { olderThan?: number; limit?: number } = {},
): Promise<{ entries: AccountLedgerLine[]; olderCursor?: number }> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
  // One row beyond the page: it says whether an older page exists, and it is the entry before the
  // page's oldest line, needed to check that line's continuity.
  const { rows } = await getPool().query<Omit<AccountLedgerLine, "continuous">>(
    `SELECT l.id, l.kind, l.amount_cents AS "amountCents", l.balance_after_cents AS "balanceAfterCents",
            l.order_id AS "orderId", o.public_id AS "orderPublicId", l.actor, l.reason, l.created_at AS "createdAt"
       FROM ledger_entries l LEFT JOIN orders o ON o.id = l.order_id
      WHERE l.account_id = $1 AND l.id < $2
      ORDER BY l.id DESC LIMIT $3`,
    [accountId, options.olderThan ?? 2_147_483_647, limit + 1],
  );
  const entries = rows.slice(0, limit).map((row, index) => {
    const previousBalance = rows[index + 1]?.balanceAfterCents ?? 0;
    return { ...row, continuous: previousBalance + row.amountCents === row.balanceAfterCents };
  });
  return { entries, olderCursor: rows.length > limit ? entries[entries.length - 1].id : undefined };
}
