import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { hashTelegramLinkCode } from "./telegram-link-code";

export type LinkTelegramAccountResult =
  | { status: "linked"; adminId: number; email: string; role: string; previousTelegramId: number | null }
  /** Unknown, mistyped, expired or already used: one answer for all, so a guess learns nothing. */
  | { status: "invalid_code" }
  /** This Telegram account is linked to another admin: that link has to go first. */
  | { status: "telegram_taken" };

/**
 * Links the Telegram account that sent `code` (the bot's /link) to the admin the code was issued to.
 * The code is spent by one conditional UPDATE, so of two racing uses one links; a disabled admin's
 * code links nothing. Relinking replaces the admin's previous Telegram account. Audited.
 */
export async function linkTelegramAccount(input: {
  code: string;
  telegramId: number;
  actor: string;
}): Promise<LinkTelegramAccountResult> {
  const codeHash = hashTelegramLinkCode(input.code);
  if (codeHash === undefined) return { status: "invalid_code" };
  const telegramId = BigInt(input.telegramId);
  return getPrisma().$transaction(async (tx) => {
    const [spent] = await tx.adminTelegramLinkCode.updateManyAndReturn({
      where: { codeHash, usedAt: null, expiresAt: { gt: new Date() }, adminUser: { disabled: false } },
      data: { usedAt: new Date() },
      select: { adminUserId: true },
    });
    if (!spent) return { status: "invalid_code" as const };
    const taken = await tx.adminTelegramLink.findUnique({ where: { telegramId }, select: { adminUserId: true } });
    // Spent either way: the code was shown once and its admin can ask for another.
    if (taken && taken.adminUserId !== spent.adminUserId) return { status: "telegram_taken" as const };
    const previous = await tx.adminTelegramLink.findUnique({
      where: { adminUserId: spent.adminUserId },
      select: { telegramId: true },
    });
    await tx.adminTelegramLink.upsert({
      where: { adminUserId: spent.adminUserId },
      create: { adminUserId: spent.adminUserId, telegramId },
      update: { telegramId, linkedAt: new Date() },
    });
    const admin = await tx.adminUser.findUniqueOrThrow({
      where: { id: spent.adminUserId },
      select: { email: true, role: true },
    });
    const previousTelegramId = previous ? numberFromDb(previous.telegramId) : null;
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.telegram_link",
        targetType: "admin_user",
        targetId: spent.adminUserId,
        details: { email: admin.email, telegramId: input.telegramId, previousTelegramId },
      },
      tx,
    );
    return { status: "linked" as const, adminId: spent.adminUserId, ...admin, previousTelegramId };
  });
}
