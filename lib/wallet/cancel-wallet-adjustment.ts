import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { toWalletAdjustmentRequest, type WalletAdjustmentRequest } from "./wallet-adjustment-request";

export type CancelAdjustmentResult =
  | { status: "cancelled"; request: WalletAdjustmentRequest }
  | { status: "not_found" }
  | { status: "not_yours"; request: WalletAdjustmentRequest }
  | { status: "already_resolved"; request: WalletAdjustmentRequest };

/** Cancels a pending credit or debit; after this its Confirm button moves no money. */
export async function cancelWalletAdjustment(input: {
  token: string;
  adminTelegramId: number;
  actor: string;
}): Promise<CancelAdjustmentResult> {
  const prisma = getPrisma();
  const cancelled = await prisma.$transaction(async (tx) => {
    // Conditional on status: a Cancel racing a Confirm changes nothing once the Confirm committed.
    const [row] = await tx.adminActionRequest.updateManyAndReturn({
      where: { token: input.token, status: "pending", adminTelegramId: BigInt(input.adminTelegramId) },
      data: { status: "cancelled", resolvedAt: new Date() },
    });
    if (!row) return undefined;
    const request = toWalletAdjustmentRequest(row);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: `wallet.${request.kind}_cancelled`,
        targetType: "account",
        targetId: request.accountId,
        details: { requestId: request.id, amountCents: request.amountCents },
      },
      tx,
    );
    return request;
  });
  if (cancelled) return { status: "cancelled", request: cancelled };
  const row = await prisma.adminActionRequest.findUnique({ where: { token: input.token } });
  if (!row) return { status: "not_found" };
  const request = toWalletAdjustmentRequest(row);
  if (request.adminTelegramId !== input.adminTelegramId) return { status: "not_yours", request };
  return { status: "already_resolved", request };
}
