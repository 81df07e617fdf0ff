// Tells one Telegram chat something (a holder: their deposit was approved, rejected or expired), from
// the worker's job, so the dashboard and the worker's looks never wait on Telegram. A chat Telegram
// refuses for good (blocked, never started) is logged, not retried.
import { telegramFromEnv } from "./telegram-from-env";
import { logger } from "../observability/logger";

export async function tellChat(chatId: string, text: string): Promise<void> {
  const log = logger("telegram");
  const telegram = telegramFromEnv();
  if (!telegram) return void log.warn(`${text} (TELEGRAM_BOT_TOKEN is not set here, so chat ${chatId} is not told)`);
  try {
    await telegram.sendMessage(chatId, text);
  } catch (error) {
    const code = (error as { code?: number }).code;
    // 400 and 403: the chat is gone or blocked the bot; trying again changes nothing.
    if (code === 400 || code === 403) return void log.warn(`could not tell ${chatId}: ${(error as Error).message}`);
    throw error;
  }
}
