// The only code that changes a wallet balance. Every change is one conditional UPDATE plus one
// ledger row, inside the caller's transaction, so the balance always equals the sum of the ledger
// and can never go below zero (the database CHECK is the second line of defence).
//
// Callers are the bot's and the seed's Prisma transactions and the hot path's raw-SQL transactions
// (placement, settlement). Both run the same two statements below: for a Prisma transaction they go
// through $queryRawUnsafe, so there is one text of the money move, not one per client.
import { runSql, type SqlTransaction } from "../db/run-sql";
import { numberFromDb } from "../db/number-from-db";
import type { LedgerKind } from "../generated/prisma/enums";
import { recordBalanceLowIfCrossed } from "../webhooks/record-balance-low";

export type { LedgerKind } from "../generated/prisma/enums";

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

/** A transaction to post in: a Prisma transaction client or a raw-SQL transaction's pg client. */
export type LedgerTransaction = SqlTransaction;

// The move also takes the account's next ledger number (account_seq): the account's row stays
// locked to the end of the transaction, so the numbers are 1..n without gaps and in posting order,
// and GET /ledger reads an exact total from the account's row.
const MOVE_BALANCE = `UPDATE accounts
    SET balance_cents = balance_cents + $2,
        total_credited_cents = total_credited_cents + $3,
        ledger_count = ledger_count + 1,
        updated_at = now()
  WHERE id = $1 AND balance_cents + $2 >= 0
  RETURNING balance_cents, low_balance_threshold_cents, ledger_count`;

const INSERT_ENTRY = `INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id, account_seq)
  VALUES ($1, $2::"LedgerKind", $3, $4, $5, $6, $7, $8, $9)
  RETURNING id`;

export async function postLedgerEntry(tx: LedgerTransaction, posting: LedgerPosting): Promise<PostedEntry> {
  if (!Number.isSafeInteger(posting.amountCents) || posting.amountCents === 0) {
    throw new Error(`ledger amount must be a non-zero integer number of cents, got ${posting.amountCents}`);
  }
  const credited = posting.kind === "credit" ? posting.amountCents : 0;
  const updated = await runSql<{ balance_cents: bigint | number; low_balance_threshold_cents: bigint | number | null; ledger_count: number }>(tx, MOVE_BALANCE, [posting.accountId, posting.amountCents, credited]);
  if (updated.length === 0) throw new InsufficientBalanceError(posting.accountId);
  const balanceAfterCents = numberFromDb(updated[0].balance_cents);
  const thresholdCents = updated[0].low_balance_threshold_cents === null ? null : numberFromDb(updated[0].low_balance_threshold_cents);
  await recordBalanceLowIfCrossed(tx, posting.accountId, balanceAfterCents - posting.amountCents, balanceAfterCents, thresholdCents);
  const inserted = await runSql<{ id: number }>(tx, INSERT_ENTRY, [
    posting.accountId,
    posting.kind,
    posting.amountCents,
    balanceAfterCents,
    posting.orderId ?? null,
    posting.actor,
    posting.reason ?? null,
    posting.auditLogId ?? null,
    updated[0].ledger_count,
  ]);
  return { id: inserted[0].id, balanceAfterCents };
}
