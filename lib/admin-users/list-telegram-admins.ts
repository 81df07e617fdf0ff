import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";
import { ADMIN_ROLES, type AdminRole } from "./admin-role";
import { telegramAdminMay, type TelegramAdmin } from "./telegram-admin";

/** Every active linked admin who may do what needs `role`, oldest link first. */
export async function listTelegramAdmins(role: AdminRole): Promise<TelegramAdmin[]> {
  const links = await getPrisma().adminTelegramLink.findMany({
    where: { adminUser: { disabled: false, role: { in: ADMIN_ROLES.slice(ADMIN_ROLES.indexOf(role)) } } },
    select: { telegramId: true, adminUser: { select: { id: true, email: true, role: true, totpEnabledAt: true } } },
    orderBy: { linkedAt: "asc" },
  });
  return links
    .map(({ telegramId, adminUser }): TelegramAdmin => ({
      adminId: adminUser.id,
      email: adminUser.email,
      role: adminUser.role,
      telegramId: numberFromDb(telegramId),
      twoFactor: adminUser.totpEnabledAt !== null,
    }))
    .filter((admin) => telegramAdminMay(admin, role));
}
