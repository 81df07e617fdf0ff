// The only code that changes a wallet balance: post_ledger_entry (prisma/functions/post_ledger_entry.sql)
// moves the balance with one conditional UPDATE and writes its ledger row inside the caller's
// transaction, so the balance always equals the sum of the ledger and never goes below zero (the
// database CHECK is the second line of defence). Callers are the bot's and the seed's Prisma
// transactions and the worker's settlement; the placement calls the function from its own
// (place_order).
import { runSql, sql, type SqlTransaction } from "../../db/run-sql";
import { numberFromDb } from "../../db/number-from-db";
import type { LedgerKind } from "../../generated/prisma/enums";
import { newEventId, wakeDispatchersAfterCommit } from "../../webhooks/sql/record-webhook-event";

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

/** Checks a posting's amount before any SQL runs. */
function assertPostingAmount(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents === 0) {
    throw new Error(`ledger amount must be a non-zero integer number of cents, got ${amountCents}`);
  }
}

// One round trip: the move, its entry, and balance.low when the move crossed the holder's threshold.
export async function postLedgerEntry(tx: LedgerTransaction, posting: LedgerPosting): Promise<PostedEntry> {
  assertPostingAmount(posting.amountCents);
  const rows = await runSql<{ entryId: number; balanceAfterCents: bigint | number; deliveries: number }>(
    tx,
    sql`SELECT * FROM post_ledger_entry(
          account_id => ${posting.accountId}::int,
          kind => ${posting.kind}::"LedgerKind",
          amount_cents => ${posting.amountCents}::bigint,
          order_id => ${posting.orderId ?? null}::int,
          actor => ${posting.actor},
          reason => ${posting.reason ?? null}::text,
          audit_log_id => ${posting.auditLogId ?? null}::int,
          low_event_id => ${newEventId()})`,
    "post-ledger-entry",
  );
  const [row] = rows;
  if (!row) throw new InsufficientBalanceError(posting.accountId);
  wakeDispatchersAfterCommit(tx, row.deliveries);
  return { id: row.entryId, balanceAfterCents: numberFromDb(row.balanceAfterCents) };
}
