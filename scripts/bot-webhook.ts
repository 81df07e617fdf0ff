// npm run bot:webhook -- <public-url>   registers the web server's /api/telegram/webhook with Telegram
//                                        (setWebhook with TELEGRAM_WEBHOOK_SECRET as secret_token)
// npm run bot:webhook -- --delete       removes it, back to long polling (`npm run bot`)
// npm run bot:webhook -- --info         prints what Telegram has registered
// Reads TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET and TELEGRAM_API_ROOT like the bot does.
import { Telegram } from "telegraf";
import { env } from "@/lib/config/env";
import { registerTelegramWebhook, requireWebhookSecret } from "@/bot/webhook";

const USAGE = "usage: npm run bot:webhook -- <public-url> | --delete | --info";

async function main(argument: string | undefined): Promise<void> {
  const config = env();
  if (!config.telegramBotToken) throw new Error("TELEGRAM_BOT_TOKEN is not set");
  const telegram = new Telegram(
    config.telegramBotToken,
    config.telegramApiRoot ? { apiRoot: config.telegramApiRoot } : {},
  );
  if (!argument || argument === "--help") throw new Error(USAGE);
  if (argument === "--delete") {
    await telegram.deleteWebhook();
    console.log("[bot] webhook removed: run `npm run bot` (and unset TELEGRAM_WEBHOOK_SECRET) to poll");
    return;
  }
  if (argument === "--info") {
    const info = await telegram.getWebhookInfo();
    console.log(JSON.stringify(info, null, 2));
    return;
  }
  const url = await registerTelegramWebhook(telegram, {
    publicUrl: argument,
    secret: requireWebhookSecret(config.telegramWebhookSecret),
  });
  console.log(`[bot] Telegram now delivers updates to ${url}`);
}

try {
  await main(process.argv[2]);
} catch (error) {
  console.error(`[bot] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
// Keep-alive sockets to the Bot API must not hold the finished command open.
process.exit(process.exitCode ?? 0);
