// Tells the bot's admins (ADMIN_TELEGRAM_IDS and accounts marked admin) something that needs them.
// Best effort: a message that cannot be sent is logged; the dashboard shows the same state either way.
import type { Telegram } from "telegraf";
import { getPrisma } from "../db/prisma";
import { env } from "../config/env";
import { nullableNumberFromDb } from "../db/number-from-db";
import { sendToChats } from "./send-to-chats";
import { telegramFromEnv } from "./telegram-from-env";

/** How many admins were told. */
export async function notifyAdmins(
  text: string,
  telegram: Pick<Telegram, "sendMessage"> | undefined = telegramFromEnv(),
  log: (line: string) => void = console.warn,
): Promise<number> {
  if (!telegram) {
    log(`${text} (TELEGRAM_BOT_TOKEN is not set here, so no admin is told)`);
    return 0;
  }
  const marked = await getPrisma().account.findMany({ where: { isAdmin: true }, select: { telegramId: true } });
  const chats = new Set([
    ...env().adminTelegramIds,
    ...marked.flatMap((account) => {
      const id = nullableNumberFromDb(account.telegramId);
      return id === null ? [] : [String(id)];
    }),
  ]);
  return sendToChats(chats, text, telegram, log);
}
