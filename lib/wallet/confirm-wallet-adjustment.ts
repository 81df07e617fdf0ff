import { getPool, withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { InsufficientBalanceError, postLedgerEntry } from "./post-ledger-entry";
import { ADJUSTMENT_TTL_MINUTES, REQUEST_COLUMNS, type WalletAdjustmentRequest } from "./wallet-adjustment-request";

export type ConfirmAdjustmentResult =
  | {
      status: "confirmed";
      request: WalletAdjustmentRequest;
      ledgerEntryId: number;
      balanceAfterCents: number;
      /** Where to tell the holder; null for an account without Telegram (seeded, dashboard-made). */
      accountTelegramId: number | null;
    }
  | { status: "not_found" }
  /** Only the admin who asked can confirm: a button forwarded or replayed by someone else does nothing. */
  | { status: "not_yours"; request: WalletAdjustmentRequest }
  | { status: "already_resolved"; request: WalletAdjustmentRequest }
  | { status: "expired"; request: WalletAdjustmentRequest }
  /** The debit would take the balance below zero: nothing moved, the request is cancelled. */
  | { status: "insufficient_balance"; request: WalletAdjustmentRequest; balanceCents: number };

/**
 * Carries out a pending credit or debit exactly once. The request's status flips from pending in
 * the same transaction as the ledger entry: a second Confirm (a double tap, a redelivered update, a
 * second instance of the bot) finds nothing pending and moves no money. Credits post kind "credit";
 * debits post kind "adjustment" with a negative amount and never take the balance below zero.
 */
export async function confirmWalletAdjustment(input: {
  token: string;
  adminTelegramId: number;
  actor: string;
}): Promise<ConfirmAdjustmentResult> {
  try {
    const done = await withTransaction(async (client) => {
      // The conditional UPDATE is the lock: of two concurrent confirms, the second waits for the
      // first to commit, then sees status <> 'pending' and updates nothing.
      const { rows } = await client.query<WalletAdjustmentRequest>(
        `UPDATE admin_action_requests SET status = 'confirmed', resolved_at = now()
          WHERE token = $1 AND status = 'pending' AND admin_telegram_id = $2
            AND created_at > now() - make_interval(mins => $3)
          RETURNING ${REQUEST_COLUMNS}`,
        [input.token, input.adminTelegramId, ADJUSTMENT_TTL_MINUTES],
      );
      const request = rows[0];
      if (!request) return undefined;
      const auditLogId = await recordAuditEntry(
        {
          actor: input.actor,
          action: `wallet.${request.kind}`,
          targetType: "account",
          targetId: request.accountId,
          details: { requestId: request.id, amountCents: request.amountCents, note: request.note },
        },
        client,
      );
      const posted = await postLedgerEntry(client, {
        accountId: request.accountId,
        kind: request.kind === "credit" ? "credit" : "adjustment",
        amountCents: request.kind === "credit" ? request.amountCents : -request.amountCents,
        actor: input.actor,
        reason: request.note ?? (request.kind === "credit" ? "admin credit" : null),
        auditLogId,
      });
      const account = await client.query<{ telegramId: number | null }>(`SELECT telegram_id AS "telegramId" FROM accounts WHERE id = $1`, [
        request.accountId,
      ]);
      return {
        status: "confirmed" as const,
        request,
        ledgerEntryId: posted.id,
        balanceAfterCents: posted.balanceAfterCents,
        accountTelegramId: account.rows[0]?.telegramId ?? null,
      };
    });
    if (done) return done;
  } catch (error) {
    if (error instanceof InsufficientBalanceError) return refuseDebit(input);
    throw error;
  }
  return explainUnconfirmed(input);
}

/** The debit could not be covered: the whole transaction rolled back; close the request so it cannot be retried blindly. */
async function refuseDebit(input: { token: string; actor: string }): Promise<ConfirmAdjustmentResult> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<WalletAdjustmentRequest>(
      `UPDATE admin_action_requests SET status = 'cancelled', resolved_at = now()
        WHERE token = $1 AND status = 'pending' RETURNING ${REQUEST_COLUMNS}`,
      [input.token],
    );
    const request = rows[0] ?? (await client.query<WalletAdjustmentRequest>(`SELECT ${REQUEST_COLUMNS} FROM admin_action_requests WHERE token = $1`, [input.token])).rows[0];
    const balance = await client.query<{ balanceCents: number }>(`SELECT balance_cents AS "balanceCents" FROM accounts WHERE id = $1`, [
      request.accountId,
    ]);
    const balanceCents = balance.rows[0]?.balanceCents ?? 0;
    if (rows[0]) {
      await recordAuditEntry(
        {
          actor: input.actor,
          action: "wallet.debit_refused",
          targetType: "account",
          targetId: request.accountId,
          details: { requestId: request.id, amountCents: request.amountCents, balanceCents },
        },
        client,
      );
    }
    return { status: "insufficient_balance" as const, request, balanceCents };
  });
}

/** Nothing was confirmed: say why (unknown, someone else's, already resolved, or too old). */
async function explainUnconfirmed(input: { token: string; adminTelegramId: number }): Promise<ConfirmAdjustmentResult> {
  const { rows } = await getPool().query<WalletAdjustmentRequest>(`SELECT ${REQUEST_COLUMNS} FROM admin_action_requests WHERE token = $1`, [
    input.token,
  ]);
  const request = rows[0];
  if (!request) return { status: "not_found" };
  if (request.adminTelegramId !== input.adminTelegramId) return { status: "not_yours", request };
  if (request.status !== "pending") return { status: "already_resolved", request };
  // Still pending for its own admin, so it is past its time: close it for good.
  const expired = await getPool().query<WalletAdjustmentRequest>(
    `UPDATE admin_action_requests SET status = 'expired', resolved_at = now()
      WHERE token = $1 AND status = 'pending' RETURNING ${REQUEST_COLUMNS}`,
    [input.token],
  );
  if (expired.rows[0]) return { status: "expired", request: expired.rows[0] };
  // Resolved by a concurrent press between the two statements above.
  const again = await getPool().query<WalletAdjustmentRequest>(`SELECT ${REQUEST_COLUMNS} FROM admin_action_requests WHERE token = $1`, [
    input.token,
  ]);
  return { status: "already_resolved", request: again.rows[0] };
}
