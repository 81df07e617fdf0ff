// POST /api/telegram/webhook: Telegram's updates in webhook mode (bot/webhook.ts). The bot is loaded
// on the first update, so a web process in polling mode (the default) never loads it.
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function POST(request: Request): Promise<Response> {
  const { handleTelegramWebhook } = await import("@/bot/webhook");
  return handleTelegramWebhook(request);
}

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
