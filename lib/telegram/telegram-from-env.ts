import { Telegram } from "telegraf";
import { env } from "../config/env";

/** The Bot API client of TELEGRAM_BOT_TOKEN (and TELEGRAM_API_ROOT), for messages sent outside the bot; undefined without a token. */
export function telegramFromEnv(): Telegram | undefined {
  const { telegramBotToken, telegramApiRoot } = env();
  return telegramBotToken
    ? new Telegram(telegramBotToken, telegramApiRoot ? { apiRoot: telegramApiRoot } : {})
    : undefined;
}
