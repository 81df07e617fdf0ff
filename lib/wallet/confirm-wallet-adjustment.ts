import { getPrisma, type PrismaTx } from "../db/prisma";
import { numberFromDb, nullableNumberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { lockAccount } from "../accounts/sql/lock-account";
import { InsufficientBalanceError } from "./sql/post-ledger-entry";
import { postWalletAdjustment } from "./post-wallet-adjustment";
import {
  ADJUSTMENT_TTL_MINUTES,
  APPROVAL_TTL_HOURS,
  toWalletAdjustmentRequest,
  type WalletAdjustmentRequest,
} from "./wallet-adjustment-request";

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
  /** A large credit's requester pressed Approve: another admin has to. */
  | { status: "own_request"; request: WalletAdjustmentRequest }
  | { status: "already_resolved"; request: WalletAdjustmentRequest }
  | { status: "expired"; request: WalletAdjustmentRequest }
  /** The debit would take the balance below zero: nothing moved, the request is cancelled. */
  | { status: "insufficient_balance"; request: WalletAdjustmentRequest; balanceCents: number }
  /**
   * The account was named by @username and no longer carries it (renamed, or the name went to
   * someone else): nothing moved, the request is cancelled. `currentUsername` is the account's now.
   */
  | { status: "username_changed"; request: WalletAdjustmentRequest; currentUsername: string | null };

class UsernameChangedError extends Error {
  constructor(readonly currentUsername: string | null) {
    super("the account's username changed since the request");
  }
}

function sameUsername(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

/** Who pressed: their Telegram account and the admin user linked to it. */
export interface AdjustmentDecider {
  token: string;
  adminTelegramId: number;
  adminUserId: number;
  actor: string;
}

/** Whether the admin who pressed is the one who asked (by Telegram account or by admin user). */
export function isRequester(request: WalletAdjustmentRequest, by: AdjustmentDecider): boolean {
  return request.adminTelegramId === by.adminTelegramId || request.requestedByAdminId === by.adminUserId;
}

/**
 * Carries out a pending credit or debit exactly once: the requester's Confirm, or for a large credit
 * another admin's Approve (never the requester's). The request's status flips from pending in the
 * same transaction as the ledger entry: a second press (a double tap, a redelivered update, a
 * second instance of the bot, two admins approving at once) finds nothing pending and moves no
 * money. Credits post kind "credit"; debits post kind "adjustment" with a negative amount and never
 * take the balance below zero.
 */
export async function confirmWalletAdjustment(input: AdjustmentDecider): Promise<ConfirmAdjustmentResult> {
  try {
    const done = await getPrisma().$transaction(async (tx) => {
      const request = await claimPendingRequest(tx, input);
      return request && (await carryOut(tx, input, request));
    });
    if (done) return done;
  } catch (error) {
    if (error instanceof InsufficientBalanceError)
      return refuse(input, "wallet.debit_refused", (request, balanceCents) => ({
        status: "insufficient_balance",
        request,
        balanceCents,
      }));
    if (error instanceof UsernameChangedError) {
      return refuse(input, "wallet.username_changed", (request) => ({
        status: "username_changed",
        request,
        currentUsername: error.currentUsername,
      }));
    }
    throw error;
  }
  return explainUnconfirmed(input);
}

/** The request, marked confirmed, when it is pending and `input`'s admin may decide it now; else nothing. */
async function claimPendingRequest(
  tx: PrismaTx,
  input: AdjustmentDecider,
): Promise<WalletAdjustmentRequest | undefined> {
  // The conditional UPDATE is the lock: of two concurrent confirms, the second waits for the
  // first to commit, then sees status <> 'pending' and updates nothing.
  const telegramId = BigInt(input.adminTelegramId);
  const [row] = await tx.adminActionRequest.updateManyAndReturn({
    where: {
      token: input.token,
      status: "pending",
      OR: [
        {
          needsApproval: false,
          adminTelegramId: telegramId,
          createdAt: { gt: new Date(Date.now() - ADJUSTMENT_TTL_MINUTES * 60_000) },
        },
        {
          needsApproval: true,
          adminTelegramId: { not: telegramId },
          requestedByAdminId: { not: input.adminUserId },
          createdAt: { gt: new Date(Date.now() - APPROVAL_TTL_HOURS * 3_600_000) },
        },
      ],
    },
    data: { status: "confirmed", resolvedAt: new Date(), resolvedBy: input.actor },
  });
  return row && toWalletAdjustmentRequest(row);
}

/** Moves the money of a claimed request, audited, with its webhook event, in the claim's transaction. */
async function carryOut(
  tx: PrismaTx,
  input: AdjustmentDecider,
  request: WalletAdjustmentRequest,
): Promise<ConfirmAdjustmentResult> {
  // Locked, so a rename cannot slip in between this check and the commit.
  await lockAccount(tx, request.accountId);
  const account = await tx.account.findUnique({
    where: { id: request.accountId },
    select: { telegramUsername: true },
  });
  if (request.accountUsername !== null && !sameUsername(account?.telegramUsername ?? null, request.accountUsername)) {
    throw new UsernameChangedError(account?.telegramUsername ?? null);
  }
  const posted = await postWalletAdjustment(tx, {
    kind: request.kind,
    accountId: request.accountId,
    amountCents: request.amountCents,
    actor: input.actor,
    note: request.note,
    details: {
      requestId: request.id,
      ...(request.needsApproval ? { approvedBy: input.actor, requestedBy: `telegram:${request.adminTelegramId}` } : {}),
    },
  });
  const holder = await tx.account.findUnique({ where: { id: request.accountId }, select: { telegramId: true } });
  return {
    status: "confirmed",
    request,
    ledgerEntryId: posted.ledgerEntryId,
    balanceAfterCents: posted.balanceAfterCents,
    accountTelegramId: nullableNumberFromDb(holder?.telegramId ?? null),
  };
}

/**
 * Confirm was refused (the debit could not be covered, or the named @username changed hands): the
 * whole transaction rolled back; close the request so it cannot be retried blindly, and audit why.
 */
async function refuse(
  input: AdjustmentDecider,
  action: string,
  result: (request: WalletAdjustmentRequest, balanceCents: number) => ConfirmAdjustmentResult,
): Promise<ConfirmAdjustmentResult> {
  return getPrisma().$transaction(async (tx: PrismaTx) => {
    const [closed] = await tx.adminActionRequest.updateManyAndReturn({
      where: { token: input.token, status: "pending" },
      data: { status: "cancelled", resolvedAt: new Date(), resolvedBy: input.actor },
    });
    const request = toWalletAdjustmentRequest(
      closed ?? (await tx.adminActionRequest.findUniqueOrThrow({ where: { token: input.token } })),
    );
    const account = await tx.account.findUnique({
      where: { id: request.accountId },
      select: { balanceCents: true, telegramUsername: true },
    });
    const balanceCents = numberFromDb(account?.balanceCents ?? 0);
    if (closed) {
      await recordAuditEntry(
        {
          actor: input.actor,
          action,
          targetType: "account",
          targetId: request.accountId,
          details: {
            requestId: request.id,
            amountCents: request.amountCents,
            balanceCents,
            namedUsername: request.accountUsername,
            currentUsername: account?.telegramUsername ?? null,
          },
        },
        tx,
      );
    }
    return result(request, balanceCents);
  });
}

/** Nothing was confirmed: say why (unknown, someone else's, the requester's own, already resolved, or too old). */
async function explainUnconfirmed(input: AdjustmentDecider): Promise<ConfirmAdjustmentResult> {
  const prisma = getPrisma();
  const row = await prisma.adminActionRequest.findUnique({ where: { token: input.token } });
  if (!row) return { status: "not_found" };
  const request = toWalletAdjustmentRequest(row);
  const own = isRequester(request, input);
  if (!request.needsApproval && request.adminTelegramId !== input.adminTelegramId)
    return { status: "not_yours", request };
  if (request.status !== "pending") return { status: "already_resolved", request };
  if (request.needsApproval && own) return { status: "own_request", request };
  // Still pending for someone who may decide it, so it is past its time: close it for good.
  const [expired] = await prisma.adminActionRequest.updateManyAndReturn({
    where: { token: input.token, status: "pending" },
    data: { status: "expired", resolvedAt: new Date(), resolvedBy: input.actor },
  });
  if (expired) return { status: "expired", request: toWalletAdjustmentRequest(expired) };
  // Resolved by a concurrent press between the two statements above.
  return {
    status: "already_resolved",
    request: toWalletAdjustmentRequest(
      await prisma.adminActionRequest.findUniqueOrThrow({ where: { token: input.token } }),
    ),
  };
}
