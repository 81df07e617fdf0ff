// POST /api/telegram/webhook: Telegram's updates in webhook mode (bot/webhook.ts). The bot is
// loaded on the first update, so a web process in polling mode (the default) never loads it.
import type { RouteHandler } from "@/lib/http/router";

export { TELEGRAM_WEBHOOK_PATH } from "@/bot/webhook-path";

export const postTelegramWebhook: RouteHandler = async (request) => {
  const { handleTelegramWebhook } = await import("@/bot/webhook");
  return handleTelegramWebhook(request);
};
