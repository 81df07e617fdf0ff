import { getPrisma } from "../db/prisma";
import type { TelegramAdmin } from "./telegram-admin";

/** The active admin linked to this Telegram account, or undefined (not linked, or the admin is disabled). */
export async function findTelegramAdmin(telegramId: number): Promise<TelegramAdmin | undefined> {
  const link = await getPrisma().adminTelegramLink.findFirst({
    where: { telegramId: BigInt(telegramId), adminUser: { disabled: false } },
    select: { adminUser: { select: { id: true, email: true, role: true, totpEnabledAt: true } } },
  });
  if (!link) return undefined;
  const { id, email, role, totpEnabledAt } = link.adminUser;
  return { adminId: id, email, role, telegramId, twoFactor: totpEnabledAt !== null };
}
