// Who hears the bot's notices: the linked admins whose role may act on them, and, until an owner has
// linked a Telegram account, the bootstrap ids of ADMIN_TELEGRAM_IDS (so the first owner hears about
// the service before linking). A notice tells; it grants nothing.
import { env } from "../config/env";
import type { AdminRole } from "../admin-users/admin-role";
import { listTelegramAdmins } from "../admin-users/list-telegram-admins";

/** The chat ids to tell, for notices meant for admins of `role` and above. */
export async function listNoticeChats(role: AdminRole): Promise<string[]> {
  const [admins, owners] = await Promise.all([
    listTelegramAdmins(role),
    role === "owner" ? undefined : listTelegramAdmins("owner"),
  ]);
  const chats = new Set(admins.map((admin) => String(admin.telegramId)));
  if ((owners ?? admins).length === 0) for (const id of env().adminTelegramIds) chats.add(id.trim());
  return [...chats];
}
