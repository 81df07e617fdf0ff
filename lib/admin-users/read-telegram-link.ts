import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";

/** The admin's linked Telegram account, for their account page; undefined when none is linked. */
export async function readTelegramLink(adminId: number): Promise<{ telegramId: number; linkedAt: Date } | undefined> {
  const link = await getPrisma().adminTelegramLink.findUnique({ where: { adminUserId: adminId } });
  return link ? { telegramId: numberFromDb(link.telegramId), linkedAt: link.linkedAt } : undefined;
}
