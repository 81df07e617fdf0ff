// The worker's periodic look (lib/fulfilment/start-periodic-looks.ts): pending requests past their
// time close by themselves, each holder told once, in the transaction that closes them. An approval
// racing this waits on the row and then finds it expired (or this finds it approved).
import { getPrisma } from "../db/prisma";
import { nullableNumberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { addTellChatJob } from "../telegram/sql/add-tell-chat-job";
import { expiredText } from "./decide-deposit";

/** How many requests it closed. */
export async function expireDepositRequests(): Promise<number> {
  return getPrisma().$transaction(async (tx) => {
    const closed = await tx.depositRequest.updateManyAndReturn({
      where: { status: "pending", expiresAt: { lt: new Date() } },
      data: { status: "expired", resolvedAt: new Date(), resolvedBy: "system" },
      select: { id: true, reference: true, amountCents: true, account: { select: { telegramId: true } } },
    });
    for (const deposit of closed) {
      const amountCents = Number(deposit.amountCents);
      await recordAuditEntry(
        {
          actor: "system",
          action: "deposit.expired",
          targetType: "deposit",
          targetId: deposit.id,
          details: { reference: deposit.reference, amountCents },
        },
        tx,
      );
      const chat = nullableNumberFromDb(deposit.account.telegramId);
      if (chat !== null) await addTellChatJob(tx, chat, expiredText({ reference: deposit.reference, amountCents }));
    }
    return closed.length;
  });
}
