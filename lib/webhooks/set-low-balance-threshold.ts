import { getPrisma } from "../db/prisma";
import { nullableNumberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/** Sets (or with null clears) the balance below which a balance.low event is sent. */
export async function setLowBalanceThreshold(input: {
  accountId: number;
  thresholdCents: number | null;
  actor: string;
}): Promise<void> {
  await getPrisma().$transaction(async (tx) => {
    await tx.account.updateMany({
      where: { id: input.accountId },
      data: { lowBalanceThresholdCents: input.thresholdCents === null ? null : BigInt(input.thresholdCents) },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "account.low_balance_threshold",
        targetType: "account",
        targetId: input.accountId,
        details: { thresholdCents: input.thresholdCents },
      },
      tx,
    );
  });
}

export async function readLowBalanceThreshold(accountId: number): Promise<number | null> {
  const account = await getPrisma().account.findUnique({
    where: { id: accountId },
    select: { lowBalanceThresholdCents: true },
  });
  return nullableNumberFromDb(account?.lowBalanceThresholdCents ?? null);
}
