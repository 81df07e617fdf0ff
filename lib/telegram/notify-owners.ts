// Tells the owners in the bot something only they should act on (an admin's second step locked by
// wrong codes). For now the owners reached are the bot's bootstrap owners, ADMIN_TELEGRAM_IDS.
// Sent by the worker (lib/telegram/telegram-tasks.ts), so nobody waits on Telegram: a message no
// owner received throws, and the job is tried again.
import { env } from "../config/env";
import { sendToChats } from "./send-to-chats";
import { telegramFromEnv } from "./telegram-from-env";

export async function notifyOwners(text: string): Promise<void> {
  const log = (line: string) => console.warn(`[telegram] ${line}`);
  const telegram = telegramFromEnv();
  const chats = new Set(env().adminTelegramIds);
  if (!telegram || chats.size === 0) {
    log(
      `${text} (${telegram ? "ADMIN_TELEGRAM_IDS is empty" : "TELEGRAM_BOT_TOKEN is not set here"}, so no owner is told)`,
    );
    return;
  }
  if ((await sendToChats(chats, text, telegram, log)) === 0) throw new Error("no owner could be told");
}
