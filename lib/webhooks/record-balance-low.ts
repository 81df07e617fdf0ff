// balance.low fires once per crossing: when a change takes the balance from at or above the
// holder's threshold to below it (not on every debit while it stays below). It rides in the
// transaction of the ledger entry that crossed, so it costs nothing unless a threshold is crossed.
import type { SqlTransaction } from "../db/run-sql";
import { centsToUsd } from "../money/cents-to-usd";
import { recordWebhookEvent } from "./record-webhook-event";

export async function recordBalanceLowIfCrossed(
  client: SqlTransaction,
  accountId: number,
  beforeCents: number,
  afterCents: number,
  thresholdCents: number | null,
): Promise<void> {
  if (thresholdCents === null || !(beforeCents >= thresholdCents && afterCents < thresholdCents)) return;
  await recordWebhookEvent(client, {
    accountId,
    type: "balance.low",
    data: { balanceUsd: centsToUsd(afterCents), currency: "USD", thresholdUsd: centsToUsd(thresholdCents) },
  });
}
