import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toWalletAdjustmentRequest, type WalletAdjustmentRequest } from "./wallet-adjustment-request";
import { isRequester, type AdjustmentDecider } from "./confirm-wallet-adjustment";

export type CancelAdjustmentResult =
  /** `rejected`: another admin turned down a large credit (its requester withdrawing it is not). */
  | { status: "cancelled"; request: WalletAdjustmentRequest; rejected: boolean }
  | { status: "not_found" }
  | { status: "not_yours"; request: WalletAdjustmentRequest }
  | { status: "already_resolved"; request: WalletAdjustmentRequest };

/**
 * Cancels a pending credit or debit: its requester's Cancel, or for a large credit also another
 * admin's Reject. After this no button of it moves money.
 */
export async function cancelWalletAdjustment(input: AdjustmentDecider): Promise<CancelAdjustmentResult> {
  const prisma = getPrisma();
  const cancelled = await prisma.$transaction(async (tx) => {
    // Conditional on status: a Cancel racing a Confirm changes nothing once the Confirm committed.
    const [row] = await tx.adminActionRequest.updateManyAndReturn({
      where: {
        token: input.token,
        status: "pending",
        OR: [{ adminTelegramId: BigInt(input.adminTelegramId) }, { needsApproval: true }],
      },
      data: { status: "cancelled", resolvedAt: new Date(), resolvedBy: input.actor },
    });
    if (!row) return undefined;
    const request = toWalletAdjustmentRequest(row);
    const rejected = !isRequester(request, input);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: `wallet.${request.kind}_${rejected ? "rejected" : "cancelled"}`,
        targetType: "account",
        targetId: request.accountId,
        details: { requestId: request.id, amountCents: request.amountCents },
      },
      tx,
    );
    return { request, rejected };
  });
  if (cancelled) return { status: "cancelled", ...cancelled };
  const row = await prisma.adminActionRequest.findUnique({ where: { token: input.token } });
  if (!row) return { status: "not_found" };
  const request = toWalletAdjustmentRequest(row);
  if (request.adminTelegramId !== input.adminTelegramId) return { status: "not_yours", request };
  return { status: "already_resolved", request };
}
