// The bot: middleware and features in the order they run. Order matters:
//   1. dedupe   — a redelivered update stops here, before anything else runs
//   2. private  — nothing about keys or money is said in group chats; forwarded commands do not run
//   3. sender   — who is talking: account, and the admin user linked to them (read per update)
//   4. guard    — admin commands and buttons are refused here unless that admin's role allows them
//   5. features — holder features and /link, then admin features (mounted for linked admins only)
//   6. fallback — anything unanswered gets a pointer to /help
import { Composer, Telegraf } from "telegraf";
import { env } from "@/lib/config/env";
import type { BotContext } from "./context";
import { dedupeUpdates } from "./middleware/dedupe-updates";
import { privateChatOnly } from "./middleware/private-chat-only";
import { ignoreForwardedCommands } from "./middleware/ignore-forwarded-commands";
import { loadSender } from "./middleware/load-sender";
import { adminGuard } from "./middleware/admin-guard";
import { start } from "./features/start";
import { keys } from "./features/keys";
import { apiAccess } from "./features/api-access";
import { ipAllowlist } from "./features/ip-allowlist";
import { wallet } from "./features/wallet";
import { testMode } from "./features/test-mode";
import { webhooks } from "./features/webhooks";
import { link } from "./features/link";
import { deposits } from "./features/deposits";
import { adminWallet } from "./features/admin-wallet";
import { adminAccounts } from "./features/admin-accounts";
import { adminSwitches } from "./features/admin-switches";
import { adminDeposits } from "./features/admin-deposits";
import { fallback } from "./features/fallback";
import { logger, messageOf } from "@/lib/observability/logger";

const log = logger("bot");

export interface CreateBotOptions {
  /** Another Bot API server (TELEGRAM_API_ROOT), e.g. a local one; Telegram's by default. */
  apiRoot?: string;
  /** The bootstrap Telegram user ids (no rights: see BotConfig); ADMIN_TELEGRAM_IDS by default. */
  adminTelegramIds?: readonly (string | number)[];
}

/** Parses admin ids strictly: a typo in ADMIN_TELEGRAM_IDS must stop the bot, not silently drop an admin. */
function parseAdminTelegramIds(ids: readonly (string | number)[]): Set<number> {
  return new Set(
    ids.map((id) => {
      const text = String(id).trim();
      if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
        throw new Error(`ADMIN_TELEGRAM_IDS: "${text}" is not a Telegram user id`);
      }
      return Number(text);
    }),
  );
}

export function createBot(token: string, options: CreateBotOptions = {}): Telegraf<BotContext> {
  const bot = new Telegraf<BotContext>(token, { telegram: options.apiRoot ? { apiRoot: options.apiRoot } : {} });
  bot.context.config = { adminTelegramIds: parseAdminTelegramIds(options.adminTelegramIds ?? env().adminTelegramIds) };

  bot.catch(async (error, ctx) => {
    // Log the stack only: error objects from Telegram carry the outgoing payload, which may hold
    // message text that must not reach the logs.
    log.error(`update ${ctx.update.update_id} (${ctx.updateType}) failed`, {
      stack: error instanceof Error ? error.stack : String(error),
    });
    try {
      if (ctx.callbackQuery) await ctx.answerCbQuery("Sorry, something went wrong. Please try again.");
      else if (ctx.chat?.type === "private")
        await ctx.reply("Sorry, something went wrong on our side. Please try again in a moment.");
    } catch (replyError) {
      log.error(`could not tell the user about the error: ${messageOf(replyError)}`);
    }
  });

  bot.use(dedupeUpdates);
  bot.use(privateChatOnly);
  bot.use(ignoreForwardedCommands);
  bot.use(loadSender);
  bot.use(adminGuard);
  bot.use(start, keys, apiAccess, ipAllowlist, wallet, deposits, testMode, webhooks, link);
  bot.use(
    Composer.optional(
      (ctx: BotContext) => ctx.sender?.isAdmin === true,
      adminWallet,
      adminDeposits,
      adminAccounts,
      adminSwitches,
    ),
  );
  bot.use(fallback);
  return bot;
}
