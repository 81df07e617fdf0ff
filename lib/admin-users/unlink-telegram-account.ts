import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/** Removes the admin's Telegram link: from the next update on, the bot treats that account as nobody's. Audited. */
export async function unlinkTelegramAccount(input: {
  adminId: number;
  actor: string;
}): Promise<{ status: "unlinked"; telegramId: number } | { status: "not_linked" }> {
  return getPrisma().$transaction(async (tx) => {
    const removed = await tx.adminTelegramLink.findUnique({ where: { adminUserId: input.adminId } });
    if (!removed) return { status: "not_linked" as const };
    // Conditional on the id read: a relink in between is not undone by a stale unlink.
    const { count } = await tx.adminTelegramLink.deleteMany({
      where: { adminUserId: input.adminId, telegramId: removed.telegramId },
    });
    if (count === 0) return { status: "not_linked" as const };
    const telegramId = numberFromDb(removed.telegramId);
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.telegram_unlink",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { telegramId },
      },
      tx,
    );
    return { status: "unlinked" as const, telegramId };
  });
}
