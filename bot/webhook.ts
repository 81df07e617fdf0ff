// Webhook mode (TELEGRAM_WEBHOOK_SECRET set): the web process takes Telegram's POSTs, checked by
// their secret header, and nothing polls, since getUpdates and a webhook exclude each other. It is
// the same bot as long polling runs (createBot), so every middleware, update dedupe included, applies.
import crypto from "node:crypto";
import type { Telegraf, Telegram } from "telegraf";
import type { Update } from "telegraf/types";
import { env } from "@/lib/config/env";
import { ApiError, errorResponse, jsonResponse } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json-body";
import { createBot } from "./index";
import { TELEGRAM_WEBHOOK_PATH } from "./webhook-path";

export { TELEGRAM_WEBHOOK_PATH };
import type { BotContext } from "./context";
import { logger, messageOf } from "@/lib/observability/logger";

export const TELEGRAM_SECRET_HEADER = "x-telegram-bot-api-secret-token";
/** The update types the bot handles; Telegram sends no others to the webhook. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;
/** Telegram's rule for secret_token (1-256 of A-Z a-z 0-9 _ -), with our minimum length. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{32,256}$/;
// A message is at most 4096 characters, but an update also carries entities, a quoted reply and
// the sender: far more than the JSON API's 16 KiB, far less than this.
const MAX_UPDATE_BYTES = 1024 * 1024;

export interface WebhookHandlerOptions {
  bot: Telegraf<BotContext>;
  secret: string;
  /**
   * Telegram waits for the answer and redelivers when it takes too long. An update is answered once
   * it is handled (usually milliseconds), or after this long while handling goes on, so a slow
   * handler never makes Telegram send the update again (the dedupe would skip it anyway).
   */
  answerWithinMs?: number;
  log?: (message: string) => void;
}

/** The refusal for a missing or wrong secret: answered before the body is read. */
function isAuthentic(request: Request, secret: string): boolean {
  const given = request.headers.get(TELEGRAM_SECRET_HEADER);
  if (given === null) return false;
  // Equal-length digests, so the comparison takes the same time whatever was sent.
  const digest = (text: string) => crypto.createHash("sha256").update(text).digest();
  return crypto.timingSafeEqual(digest(given), digest(secret));
}

function isUpdate(body: unknown): body is Update {
  return typeof body === "object" && body !== null && Number.isSafeInteger((body as { update_id?: unknown }).update_id);
}

export function createTelegramWebhookHandler(options: WebhookHandlerOptions): (request: Request) => Promise<Response> {
  const answerWithinMs = options.answerWithinMs ?? 10_000;
  const log = options.log ?? ((message: string) => logger("bot").error(message));
  return async (request) => {
    if (!isAuthentic(request, options.secret)) return errorResponse("TELEGRAM_WEBHOOK_FORBIDDEN");
    let update: unknown;
    try {
      update = await readJsonBody(request, MAX_UPDATE_BYTES);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error.key, error.options);
      throw error;
    }
    if (!isUpdate(update))
      return errorResponse("INVALID_BODY", {
        extra: { details: [{ field: "update_id", message: "not a Telegram update" }] },
      });

    const handling = options.bot.handleUpdate(update).catch((error: unknown) => {
      // bot.catch has already answered the user where it could; this is what it could not handle.
      log(`[bot] webhook update ${update.update_id} failed: ${error instanceof Error ? error.stack : String(error)}`);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([handling, new Promise((resolve) => (timer = setTimeout(resolve, answerWithinMs)))]);
    clearTimeout(timer);
    return jsonResponse({ ok: true });
  };
}

let fromEnv: { handler: (request: Request) => Promise<Response>; bot: Telegraf<BotContext> } | null | undefined;

/** The handler configured from the environment; null when webhook mode is off. Throws on a weak secret. */
function webhookFromEnv() {
  if (fromEnv !== undefined) return fromEnv;
  const config = env();
  if (!config.telegramBotToken || !config.telegramWebhookSecret) return (fromEnv = null);
  const secret = requireWebhookSecret(config.telegramWebhookSecret);
  const bot = createBot(config.telegramBotToken, {
    apiRoot: config.telegramApiRoot,
    adminTelegramIds: config.adminTelegramIds,
  });
  return (fromEnv = { bot, handler: createTelegramWebhookHandler({ bot, secret }) });
}

/** POST /api/telegram/webhook, for both hosts. 404 while webhook mode is off. */
export async function handleTelegramWebhook(request: Request): Promise<Response> {
  const configured = webhookFromEnv();
  if (!configured) return errorResponse("NOT_FOUND");
  return configured.handler(request);
}

/**
 * Run by the web server before it listens: a secret that does not meet requireWebhookSecret stops
 * the start. Fetches the bot's identity (getMe) so the first update is not kept waiting for it; a
 * Bot API that cannot be reached now is not fatal: the first update asks.
 */
export async function prepareTelegramWebhook(): Promise<void> {
  const configured = webhookFromEnv();
  if (!configured) return;
  try {
    configured.bot.botInfo ??= await configured.bot.telegram.getMe();
    logger("bot").info(`@${configured.bot.botInfo.username} takes updates by webhook at ${TELEGRAM_WEBHOOK_PATH}`);
  } catch (error) {
    logger("bot").warn(`getMe failed; the first webhook update will retry it: ${messageOf(error)}`);
  }
}

/** The secret, checked against Telegram's rules; throws with what to do when it is unusable. */
export function requireWebhookSecret(secret: string | undefined): string {
  if (!secret)
    throw new Error(
      "TELEGRAM_WEBHOOK_SECRET is not set: generate one (e.g. `openssl rand -hex 32`) and set it for the web process too.",
    );
  if (!SECRET_PATTERN.test(secret)) {
    throw new Error(
      "TELEGRAM_WEBHOOK_SECRET must be 32 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule for secret_token).",
    );
  }
  return secret;
}

/** The webhook URL for the service's public base URL ("https://api.example.com" or the full path). */
export function webhookUrlFor(publicUrl: string): string {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new Error(`"${publicUrl}" is not a URL: pass the service's public base URL, e.g. https://api.example.com`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`"${publicUrl}" is not an http(s) URL`);
  const base = url.pathname.replace(/\/+$/, "");
  if (!base.endsWith(TELEGRAM_WEBHOOK_PATH)) url.pathname = base + TELEGRAM_WEBHOOK_PATH;
  return url.toString();
}

/** setWebhook with the secret and the update types the bot handles; returns the URL registered. */
export async function registerTelegramWebhook(
  telegram: Telegram,
  options: { publicUrl: string; secret: string },
): Promise<string> {
  const url = webhookUrlFor(options.publicUrl);
  await telegram.setWebhook(url, {
    secret_token: requireWebhookSecret(options.secret),
    allowed_updates: [...ALLOWED_UPDATES],
  });
  return url;
}
