// Approving or rejecting a deposit request, from the bot's buttons, the dashboard's queue or a bank
// statement import: each locks the request's row first, so whoever comes first decides and the
// others read the decision; an approval credits the wallet in the same transaction as the request's
// flip, through the admin credit's own posting (lib/wallet/post-wallet-adjustment.ts). Above the
// large-credit amount (the owner's four-eyes setting) a deposit needs two different admins' approvals.
import { getPrisma, type PrismaTx } from "../db/prisma";
import { nullableNumberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { formatUsd } from "../money/parse-usd";
import { readLargeCreditThreshold } from "../settings/read-large-credit-threshold";
import { addTellChatJob } from "../telegram/sql/add-tell-chat-job";
import { postWalletAdjustment } from "../wallet/post-wallet-adjustment";
import { DEPOSIT_FIELDS, MAX_REJECT_REASON_LENGTH, toDepositRequest, type DepositRequest } from "./deposit-request";
import { lockDepositRequest } from "./sql/lock-deposit-request";

/** Who decides: the admin user (bot admins are linked ones) and how the audit log names them. */
export interface DepositDecider {
  adminUserId: number;
  actor: string;
}

export type ApproveDepositResult =
  | { status: "approved"; deposit: DepositRequest; ledgerEntryId: number; balanceAfterCents: number }
  /** Above the large-credit amount: this approval was the first, a second admin's credits it. */
  | { status: "first_approval"; deposit: DepositRequest; thresholdCents: number }
  /** The admin who gave the first approval pressed again: another admin must. */
  | { status: "own_first_approval"; deposit: DepositRequest }
  | { status: "already_resolved"; deposit: DepositRequest }
  /** Past its time: closed as expired, nothing credited. */
  | { status: "expired"; deposit: DepositRequest }
  | { status: "not_found" };

export type RejectDepositResult =
  | { status: "rejected"; deposit: DepositRequest }
  | { status: "already_resolved"; deposit: DepositRequest }
  | { status: "not_found" };

async function readLocked(tx: PrismaTx, depositId: number): Promise<DepositRequest | undefined> {
  if (!(await lockDepositRequest(tx, depositId))) return undefined;
  return toDepositRequest(
    await tx.depositRequest.findUniqueOrThrow({ where: { id: depositId }, select: DEPOSIT_FIELDS }),
  );
}

/** Queues the holder's message with the decision that commits (no Telegram: nobody to tell). */
async function tellHolder(tx: PrismaTx, accountId: number, text: string): Promise<void> {
  const account = await tx.account.findUnique({ where: { id: accountId }, select: { telegramId: true } });
  const chat = nullableNumberFromDb(account?.telegramId ?? null);
  if (chat !== null) await addTellChatJob(tx, chat, text);
}

/**
 * Approves a pending request. `paidAt`: when the transfer was made, from a bank statement row; it
 * must fall within the request's time. Without it the approval itself must.
 */
export async function approveDeposit(
  depositId: number,
  by: DepositDecider,
  options: { paidAt?: Date; statementRow?: string } = {},
): Promise<ApproveDepositResult> {
  return getPrisma().$transaction(async (tx) => {
    const deposit = await readLocked(tx, depositId);
    if (!deposit) return { status: "not_found" as const };
    if (deposit.status !== "pending") return { status: "already_resolved" as const, deposit };
    const at = options.paidAt ?? new Date();
    if (at.getTime() > deposit.expiresAt.getTime() || at.getTime() < deposit.createdAt.getTime() - 60_000) {
      if (options.paidAt) return { status: "already_resolved" as const, deposit };
      return { status: "expired" as const, deposit: await closeExpired(tx, deposit, by.actor) };
    }
    const thresholdCents = (await readLargeCreditThreshold(tx)).value;
    const fourEyes = deposit.amountCents > thresholdCents;
    if (fourEyes && deposit.firstApproverAdminId === null) {
      return { status: "first_approval" as const, deposit: await recordFirstApproval(tx, deposit, by), thresholdCents };
    }
    if (fourEyes && deposit.firstApproverAdminId === by.adminUserId)
      return { status: "own_first_approval" as const, deposit };
    const posted = await postWalletAdjustment(tx, {
      kind: "credit",
      accountId: deposit.accountId,
      amountCents: deposit.amountCents,
      actor: by.actor,
      note: `deposit ${deposit.reference}`,
      details: {
        depositId: deposit.id,
        reference: deposit.reference,
        ...(fourEyes ? { approvedBy: by.actor, firstApprovedBy: deposit.firstApprovedBy } : {}),
      },
    });
    const approved = toDepositRequest(
      await tx.depositRequest.update({
        where: { id: deposit.id },
        data: {
          status: "approved",
          resolvedAt: new Date(),
          resolvedBy: by.actor,
          ledgerEntryId: posted.ledgerEntryId,
          statementRow: options.statementRow ?? null,
        },
        select: DEPOSIT_FIELDS,
      }),
    );
    await recordAuditEntry(
      {
        actor: by.actor,
        action: "deposit.approved",
        targetType: "deposit",
        targetId: deposit.id,
        details: {
          reference: deposit.reference,
          accountId: deposit.accountId,
          amountCents: deposit.amountCents,
          ledgerEntryId: posted.ledgerEntryId,
          ...(options.statementRow ? { statementRow: options.statementRow } : {}),
        },
      },
      tx,
    );
    await tellHolder(
      tx,
      deposit.accountId,
      `💰 Your deposit ${deposit.reference} was approved: ${formatUsd(deposit.amountCents)} credited. Balance: ${formatUsd(posted.balanceAfterCents)}.`,
    );
    return { status: "approved" as const, deposit: approved, ...posted };
  });
}

async function recordFirstApproval(tx: PrismaTx, deposit: DepositRequest, by: DepositDecider): Promise<DepositRequest> {
  const row = await tx.depositRequest.update({
    where: { id: deposit.id },
    data: { firstApprovedBy: by.actor, firstApproverAdminId: by.adminUserId },
    select: DEPOSIT_FIELDS,
  });
  await recordAuditEntry(
    {
      actor: by.actor,
      action: "deposit.first_approval",
      targetType: "deposit",
      targetId: deposit.id,
      details: { reference: deposit.reference, amountCents: deposit.amountCents },
    },
    tx,
  );
  return toDepositRequest(row);
}

async function closeExpired(tx: PrismaTx, deposit: DepositRequest, actor: string): Promise<DepositRequest> {
  const row = await tx.depositRequest.update({
    where: { id: deposit.id },
    data: { status: "expired", resolvedAt: new Date(), resolvedBy: actor },
    select: DEPOSIT_FIELDS,
  });
  await recordAuditEntry(
    {
      actor,
      action: "deposit.expired",
      targetType: "deposit",
      targetId: deposit.id,
      details: { reference: deposit.reference, amountCents: deposit.amountCents },
    },
    tx,
  );
  await tellHolder(tx, deposit.accountId, expiredText(deposit));
  return toDepositRequest(row);
}

export function expiredText(deposit: Pick<DepositRequest, "reference" | "amountCents">): string {
  return `⌛ Your deposit request ${deposit.reference} (${formatUsd(deposit.amountCents)}) expired: nothing was credited. If you have paid, send /deposit again and the proof, or write to us.`;
}

/** Rejects a pending request; the holder is told `reason`. */
export async function rejectDeposit(
  depositId: number,
  by: DepositDecider,
  reason: string,
): Promise<RejectDepositResult> {
  const why = reason.trim().slice(0, MAX_REJECT_REASON_LENGTH);
  if (!why) throw new Error("a rejection needs a reason: the holder is told it");
  return getPrisma().$transaction(async (tx) => {
    const deposit = await readLocked(tx, depositId);
    if (!deposit) return { status: "not_found" as const };
    if (deposit.status !== "pending") return { status: "already_resolved" as const, deposit };
    const row = await tx.depositRequest.update({
      where: { id: deposit.id },
      data: { status: "rejected", resolvedAt: new Date(), resolvedBy: by.actor, rejectReason: why },
      select: DEPOSIT_FIELDS,
    });
    await recordAuditEntry(
      {
        actor: by.actor,
        action: "deposit.rejected",
        targetType: "deposit",
        targetId: deposit.id,
        details: { reference: deposit.reference, amountCents: deposit.amountCents, reason: why },
      },
      tx,
    );
    await tellHolder(
      tx,
      deposit.accountId,
      `❌ Your deposit ${deposit.reference} (${formatUsd(deposit.amountCents)}) was rejected: ${why}. Nothing was credited.`,
    );
    return { status: "rejected" as const, deposit: toDepositRequest(row) };
  });
}
