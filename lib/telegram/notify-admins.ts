// Tells the bot's admins (the admin users linked to Telegram, lib/telegram/notice-chats.ts) something
// that needs them. Best effort: a message that cannot be sent is logged; the dashboard shows the same
// state either way.
import type { Telegram } from "telegraf";
import type { AdminRole } from "../admin-users/admin-role";
import { listNoticeChats } from "./notice-chats";
import { sendToChats } from "./send-to-chats";
import { telegramFromEnv } from "./telegram-from-env";
import { logger } from "../observability/logger";

/** How many admins were told. `role`: only admins of this role and above (every admin by default). */
export async function notifyAdmins(
  text: string,
  telegram: Pick<Telegram, "sendMessage"> | undefined = telegramFromEnv(),
  log: (line: string) => void = (line) => logger("telegram").warn(line),
  role: AdminRole = "viewer",
): Promise<number> {
  if (!telegram) {
    log(`${text} (TELEGRAM_BOT_TOKEN is not set here, so no admin is told)`);
    return 0;
  }
  return sendToChats(await listNoticeChats(role), text, telegram, log);
}
