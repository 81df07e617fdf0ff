import crypto from "node:crypto";
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { MAX_ADJUSTMENT_CENTS } from "../money/parse-usd";
import { readLargeCreditThreshold } from "../settings/read-large-credit-threshold";
import {
  toWalletAdjustmentRequest,
  type AdjustmentKind,
  type WalletAdjustmentRequest,
} from "./wallet-adjustment-request";

export const MAX_ADJUSTMENT_NOTE_LENGTH = 200;

export type RequestAdjustmentResult =
  | { status: "requested"; request: WalletAdjustmentRequest; balanceCents: number }
  | { status: "account_not_found" }
  /** A debit larger than the balance is refused up front (and again at Confirm, where it counts). */
  | { status: "insufficient_balance"; balanceCents: number }
  | { status: "reason_required" };

/**
 * Records an admin's credit or debit as pending. No money moves here: only
 * confirmWalletAdjustment does, so every change is seen and confirmed before it happens. A credit
 * above the owner-set amount (LARGE_CREDIT_APPROVAL_CENTS) needs another admin's approval instead of
 * its requester's Confirm: four eyes on money.
 */
export async function requestWalletAdjustment(input: {
  kind: AdjustmentKind;
  accountId: number;
  amountCents: number;
  note?: string | null;
  adminTelegramId: number;
  /** The admin user behind that Telegram account: they can never approve their own large credit. */
  adminUserId: number;
  actor: string;
  /** The @username the admin named the account by, if they did: Confirm checks it still belongs to the account. */
  accountUsername?: string | null;
}): Promise<RequestAdjustmentResult> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || input.amountCents > MAX_ADJUSTMENT_CENTS) {
    throw new RangeError(`adjustment must be a positive integer number of cents up to ${MAX_ADJUSTMENT_CENTS}`);
  }
  const note = input.note?.trim() ? input.note.trim().slice(0, MAX_ADJUSTMENT_NOTE_LENGTH) : null;
  // A debit corrects a mistake; without a reason nobody can later tell why money was taken.
  if (input.kind === "debit" && !note) return { status: "reason_required" };
  return getPrisma().$transaction(async (tx) => {
    const account = await tx.account.findUnique({ where: { id: input.accountId }, select: { balanceCents: true } });
    if (!account) return { status: "account_not_found" as const };
    const balanceCents = numberFromDb(account.balanceCents);
    if (input.kind === "debit" && input.amountCents > balanceCents)
      return { status: "insufficient_balance" as const, balanceCents };
    const needsApproval = input.kind === "credit" && input.amountCents > (await readLargeCreditThreshold(tx)).value;
    const row = await tx.adminActionRequest.create({
      data: {
        token: crypto.randomBytes(12).toString("base64url"),
        adminTelegramId: BigInt(input.adminTelegramId),
        action: input.kind,
        accountId: input.accountId,
        amountCents: input.amountCents,
        note,
        accountUsername: input.accountUsername ?? null,
        requestedByAdminId: input.adminUserId,
        needsApproval,
      },
    });
    const request = toWalletAdjustmentRequest(row);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: `wallet.${input.kind}_requested`,
        targetType: "account",
        targetId: input.accountId,
        details: {
          requestId: request.id,
          amountCents: input.amountCents,
          note,
          accountUsername: request.accountUsername,
          needsApproval,
        },
      },
      tx,
    );
    return { status: "requested" as const, request, balanceCents };
  });
}
