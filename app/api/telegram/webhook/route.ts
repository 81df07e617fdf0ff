// Telegram webhook mode under `next start` / `next dev`; the lean host serves the same handler
// from its route table (app/api/routes.ts).
import { postTelegramWebhook } from "@/app/api/handlers/telegram-webhook";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export function POST(request: Request): Promise<Response> {
  return Promise.resolve(postTelegramWebhook(request, { params: {}, peerIp: "" }));
}
