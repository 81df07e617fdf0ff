import crypto from "node:crypto";
import { withTransaction } from "../db/pool";
import { recordAuditEntry } from "../audit/record-audit-entry";
import { MAX_ADJUSTMENT_CENTS } from "../money/parse-usd";
import { REQUEST_COLUMNS, type AdjustmentKind, type WalletAdjustmentRequest } from "./wallet-adjustment-request";

export const MAX_ADJUSTMENT_NOTE_LENGTH = 200;

export type RequestAdjustmentResult =
  | { status: "requested"; request: WalletAdjustmentRequest; balanceCents: number }
  | { status: "account_not_found" }
  /** A debit larger than the balance is refused up front (and again at Confirm, where it counts). */
  | { status: "insufficient_balance"; balanceCents: number }
  | { status: "reason_required" };

/**
 * Records an admin's credit or debit as pending. No money moves here: only
 * confirmWalletAdjustment does, so every change is seen and confirmed before it happens.
 */
export async function requestWalletAdjustment(input: {
  kind: AdjustmentKind;
  accountId: number;
  amountCents: number;
  note?: string | null;
  adminTelegramId: number;
  actor: string;
}): Promise<RequestAdjustmentResult> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || input.amountCents > MAX_ADJUSTMENT_CENTS) {
    throw new RangeError(`adjustment must be a positive integer number of cents up to ${MAX_ADJUSTMENT_CENTS}`);
  }
  const note = input.note?.trim() ? input.note.trim().slice(0, MAX_ADJUSTMENT_NOTE_LENGTH) : null;
  // A debit corrects a mistake; without a reason nobody can later tell why money was taken.
  if (input.kind === "debit" && !note) return { status: "reason_required" };
  return withTransaction(async (client) => {
    const account = await client.query<{ balanceCents: number }>(`SELECT balance_cents AS "balanceCents" FROM accounts WHERE id = $1`, [
      input.accountId,
    ]);
    if (account.rowCount === 0) return { status: "account_not_found" as const };
    const balanceCents = account.rows[0].balanceCents;
    if (input.kind === "debit" && input.amountCents > balanceCents) return { status: "insufficient_balance" as const, balanceCents };
    const token = crypto.randomBytes(12).toString("base64url");
    const { rows } = await client.query<WalletAdjustmentRequest>(
      `INSERT INTO admin_action_requests (token, admin_telegram_id, action, account_id, amount_cents, note)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${REQUEST_COLUMNS}`,
      [token, input.adminTelegramId, input.kind, input.accountId, input.amountCents, note],
    );
    await recordAuditEntry(
      {
        actor: input.actor,
        action: `wallet.${input.kind}_requested`,
        targetType: "account",
        targetId: input.accountId,
        details: { requestId: rows[0].id, amountCents: input.amountCents, note },
      },
      client,
    );
    return { status: "requested" as const, request: rows[0], balanceCents };
  });
}
