// Tells the owners in the bot something only they should act on (an admin's second step locked by
// wrong codes): the active owners linked to Telegram, or the bootstrap ADMIN_TELEGRAM_IDS while no
// owner is linked (lib/telegram/notice-chats.ts). Sent by the worker (lib/telegram/telegram-tasks.ts),
// so nobody waits on Telegram: a message no owner received throws, and the job is tried again.
import { listNoticeChats } from "./notice-chats";
import { sendToChats } from "./send-to-chats";
import { telegramFromEnv } from "./telegram-from-env";
import { logger } from "../observability/logger";

export async function notifyOwners(text: string): Promise<void> {
  const log = (line: string) => logger("telegram").warn(line);
  const telegram = telegramFromEnv();
  const chats = telegram ? await listNoticeChats("owner") : [];
  if (!telegram || chats.length === 0) {
    log(
      `${text} (${telegram ? "no owner is linked to Telegram and ADMIN_TELEGRAM_IDS is empty" : "TELEGRAM_BOT_TOKEN is not set here"}, so no owner is told)`,
    );
    return;
  }
  if ((await sendToChats(chats, text, telegram, log)) === 0) throw new Error("no owner could be told");
}
