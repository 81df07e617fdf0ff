import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { generateTelegramLinkCode, hashTelegramLinkCode, LINK_CODE_TTL_MINUTES } from "./telegram-link-code";

/**
 * A new one-time code the admin sends to the bot (/link <code>) to link their Telegram account. It
 * replaces any code of theirs not used yet, so at most one is valid at a time; shown once, stored as
 * a digest.
 */
export async function issueTelegramLinkCode(input: {
  adminId: number;
  actor: string;
}): Promise<{ code: string; expiresAt: Date }> {
  const code = generateTelegramLinkCode();
  const expiresAt = new Date(Date.now() + LINK_CODE_TTL_MINUTES * 60_000);
  await getPrisma().$transaction(async (tx) => {
    await tx.adminTelegramLinkCode.deleteMany({ where: { adminUserId: input.adminId, usedAt: null } });
    await tx.adminTelegramLinkCode.create({
      data: { adminUserId: input.adminId, codeHash: hashTelegramLinkCode(code)!, expiresAt },
    });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: "admin_user.telegram_link_code",
        targetType: "admin_user",
        targetId: input.adminId,
        details: { expiresAt: expiresAt.toISOString() },
      },
      tx,
    );
  });
  return { code, expiresAt };
}
