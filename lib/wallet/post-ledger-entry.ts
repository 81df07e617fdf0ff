// The only code that changes a wallet balance. Every change is one conditional UPDATE plus one
// ledger row, inside the caller's transaction, so the balance always equals the sum of the ledger
// and can never go below zero (the database CHECK is the second line of defence).
//
// Callers are the bot's and the seed's Prisma transactions and the hot path's raw-SQL transactions
// (settlement; placement composes the same CTEs into its one writing statement). All run the text
// ledgerMoveCtes builds: for a Prisma transaction it goes through $queryRawUnsafe, so there is one
// text of the money move, not one per client or per caller.
import { runSql, type SqlTransaction } from "../db/run-sql";
import { numberFromDb } from "../db/number-from-db";
import type { LedgerKind } from "../generated/prisma/enums";
import { balanceLowCtes } from "../webhooks/record-balance-low";
import { newEventId, WEBHOOK_DELIVERIES, wakeDispatchersAfterCommit } from "../webhooks/record-webhook-event";

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

/** SQL expressions (parameters or literals) for a posting's fields, for a statement that composes the move. */
export interface LedgerMoveSql {
  accountId: string;
  /** A "LedgerKind" value. */
  kind: string;
  /** Signed cents (bigint). */
  amountCents: string;
  /** What total_credited_cents grows by: the amount for a credit, otherwise 0. */
  creditedCents: string;
  orderId: string;
  actor: string;
  reason: string;
  auditLogId: string;
  /** The public id of the balance.low event, used only if this move crosses the threshold (newEventId()). */
  lowEventId: string;
  /**
   * A CTE (one row) the move joins: the move runs only after it, and not at all when it has no row.
   * The placement orders its locks this way (lib/orders/place-order.ts).
   */
  after?: string;
}

/**
 * The money move as CTEs, for postLedgerEntry's statement and for a statement that moves money
 * along with other writes (the placement): ledger_move (the account's row after the move:
 * balance_cents, low_balance_threshold_cents, ledger_count; no row when the balance would go below
 * zero, and then nothing else is written), ledger_entry (its id), and balance.low's CTEs
 * (lib/webhooks/record-balance-low.ts). The statement must select WEBHOOK_DELIVERIES and hand it to
 * wakeDispatchersAfterCommit.
 *
 * The move also takes the account's next ledger number (account_seq): the account's row stays
 * locked to the end of the transaction, so the numbers are 1..n without gaps and in posting order,
 * and GET /ledger reads an exact total from the account's row. Under the same lock it dates the
 * entry: now() (the transaction's start), or the account's previous entry's date when a posting
 * that started later got to the row first (ledger_last_at). So dates never go back within an
 * account, and the balance at a time is the balance_after of the last entry dated before it
 * (lib/wallet/stream-ledger-statement.ts).
 */
export function ledgerMoveCtes(p: LedgerMoveSql): string {
  return `ledger_move AS (
    UPDATE accounts
       SET balance_cents = accounts.balance_cents + ${p.amountCents},
           total_credited_cents = accounts.total_credited_cents + ${p.creditedCents},
           ledger_count = accounts.ledger_count + 1,
           ledger_last_at = greatest(now(), accounts.ledger_last_at),
           updated_at = now()${
             p.after
               ? `
      FROM ${p.after}`
               : ""
           }
     WHERE accounts.id = ${p.accountId} AND accounts.balance_cents + ${p.amountCents} >= 0
    RETURNING accounts.balance_cents, accounts.low_balance_threshold_cents, accounts.ledger_count, accounts.ledger_last_at
  ), ledger_entry AS (
    INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason, audit_log_id, account_seq, created_at)
    SELECT ${p.accountId}, ${p.kind}, ${p.amountCents}, ledger_move.balance_cents, ${p.orderId}, ${p.actor}, ${p.reason}, ${p.auditLogId},
           ledger_move.ledger_count, ledger_move.ledger_last_at
      FROM ledger_move
    RETURNING id
  ), ${balanceLowCtes("ledger_move", { accountId: p.accountId, amountCents: p.amountCents, eventId: p.lowEventId })}`;
}

const POST_ENTRY = `
  WITH ${ledgerMoveCtes({
    accountId: "$1::int",
    kind: `$2::"LedgerKind"`,
    amountCents: "$3::bigint",
    creditedCents: "$4::bigint",
    orderId: "$5::int",
    actor: "$6::text",
    reason: "$7::text",
    auditLogId: "$8::int",
    lowEventId: "$9::text",
  })}
  SELECT ledger_entry.id, ledger_move.balance_cents, ${WEBHOOK_DELIVERIES} AS deliveries FROM ledger_move, ledger_entry`;

/** Checks a posting's amount before any SQL runs. */
export function assertPostingAmount(amountCents: number): void {
  if (!Number.isSafeInteger(amountCents) || amountCents === 0) {
    throw new Error(`ledger amount must be a non-zero integer number of cents, got ${amountCents}`);
  }
}

// One statement, one round trip: the move, its entry and balance.low if it crossed.
export async function postLedgerEntry(tx: LedgerTransaction, posting: LedgerPosting): Promise<PostedEntry> {
  assertPostingAmount(posting.amountCents);
  const credited = posting.kind === "credit" ? posting.amountCents : 0;
  const rows = await runSql<{ id: number; balance_cents: bigint | number; deliveries: number }>(
    tx,
    { name: "post-ledger-entry", text: POST_ENTRY },
    [
      posting.accountId,
      posting.kind,
      posting.amountCents,
      credited,
      posting.orderId ?? null,
      posting.actor,
      posting.reason ?? null,
      posting.auditLogId ?? null,
      newEventId(),
    ],
  );
  const [posted] = rows;
  if (!posted) throw new InsufficientBalanceError(posting.accountId);
  wakeDispatchersAfterCommit(tx, posted.deliveries);
  return { id: posted.id, balanceAfterCents: numberFromDb(posted.balance_cents) };
}
