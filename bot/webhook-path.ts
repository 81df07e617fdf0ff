// Where Telegram delivers updates in webhook mode, on both hosts. Kept apart from bot/webhook.ts so
// the route table can name the path without loading the bot.
export const TELEGRAM_WEBHOOK_PATH = "/api/telegram/webhook";
