// The only code that changes a wallet balance. Every change is one conditional UPDATE plus one
// ledger row, inside the caller's transaction, so the balance always equals the sum of the ledger
// and can never go below zero (the database CHECK is the second line of defence).
import type pg from "pg";

export type LedgerKind = "credit" | "debit" | "refund" | "adjustment";

export interface LedgerPosting {
  accountId: number;
  kind: LedgerKind;
  /** Signed cents: positive for credit and refund, negative for debit, either for adjustment. */
  amountCents: number;
  orderId?: number | null;
  actor: string;
  reason?: string | null;
  auditLogId?: number | null;
}

export class InsufficientBalanceError extends Error {
  constructor(readonly accountId: number) {
    super("INSUFFICIENT BALANCE");
  }
}

export interface PostedEntry {
  id: number;
  balanceAfterCents: number;
}

export async function postLedgerEntry(client: pg.PoolClient, posting: LedgerPosting): Promise<PostedEntry> {
  if (!Number.isSafeInteger(posting.amountCents) || posting.amountCents === 0) {
    throw new Error(`ledger amount must be a non-zero integer number of cents, got ${posting.amountCents}`);
  }
  const credited = posting.kind === "credit" ? posting.amountCents : 0;
  const updated = await client.query<{ balance_cents: number }>(
    `UPDATE accounts
        SET balance_cents = balance_cents + $2,
            total_credited_cents = total_credited_cents + $3,
            updated_at = now()
      WHERE id = $1 AND balance_cents + $2 >= 0
      RETURNING balance_cents`,
    [posting.accountId, posting.amountCents, credited],
  );
  if (updated.rowCount === 0) throw new InsufficientBalanceError(posting.accountId);
  const balanceAfterCents = updated.rows[0].balance_cents;
  const inserted = await client.query<{ id: number }>(
    `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING id`,
    [
      posting.accountId,
      posting.kind,
      posting.amountCents,
      balanceAfterCents,
      posting.orderId ?? null,
      posting.actor,
      posting.reason ?? null,
      posting.auditLogId ?? null,
    ],
  );
  return { id: inserted.rows[0].id, balanceAfterCents };
}
