// An admin's credit or debit as it lands: its audit row, the ledger entry and the webhook event, in
// the caller's transaction. /credit's Confirm (or a second admin's Approve) and a deposit's approval
// both credit through here, so a deposit is audited, posted and announced as any admin credit is.
import type { PrismaTx } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { centsToUsd } from "../money/cents-to-usd";
import { recordWebhookEvent } from "../webhooks/sql/record-webhook-event";
import { postLedgerEntry } from "./sql/post-ledger-entry";
import type { AdjustmentKind } from "./wallet-adjustment-request";

export interface PostedAdjustment {
  ledgerEntryId: number;
  balanceAfterCents: number;
}

export async function postWalletAdjustment(
  tx: PrismaTx,
  input: {
    kind: AdjustmentKind;
    accountId: number;
    /** Always positive; `kind` says which way it moves. */
    amountCents: number;
    actor: string;
    /** What the holder reads with it (the ledger's reason, the event's note). */
    note: string | null;
    /** The audit row's details besides the amount and the note. */
    details: Record<string, unknown>;
  },
): Promise<PostedAdjustment> {
  const auditLogId = await recordAuditEntry(
    {
      actor: input.actor,
      action: `wallet.${input.kind}`,
      targetType: "account",
      targetId: input.accountId,
      details: { ...input.details, amountCents: input.amountCents, note: input.note },
    },
    tx,
  );
  const posted = await postLedgerEntry(tx, {
    accountId: input.accountId,
    kind: input.kind === "credit" ? "credit" : "adjustment",
    amountCents: input.kind === "credit" ? input.amountCents : -input.amountCents,
    actor: input.actor,
    reason: input.note ?? (input.kind === "credit" ? "admin credit" : null),
    auditLogId,
  });
  await recordWebhookEvent(tx, {
    accountId: input.accountId,
    type: input.kind === "credit" ? "wallet.credited" : "wallet.debited",
    data: {
      amountUsd: centsToUsd(input.amountCents),
      balanceUsd: centsToUsd(posted.balanceAfterCents),
      currency: "USD",
      note: input.note,
    },
  });
  return { ledgerEntryId: posted.id, balanceAfterCents: posted.balanceAfterCents };
}
