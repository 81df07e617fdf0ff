// Who is talking: their account (if registered) and the admin user linked to their Telegram account
// (if any, and not disabled), loaded once per update: a role changed, an admin disabled or a link
// removed on the dashboard counts from the next update. Neither ADMIN_TELEGRAM_IDS nor
// accounts.is_admin makes anyone an admin.
import type { MiddlewareFn } from "telegraf";
import { findAccountByTelegramId } from "@/lib/accounts/find-account";
import { refreshTelegramProfile } from "@/lib/accounts/refresh-telegram-profile";
import { findTelegramAdmin } from "@/lib/admin-users/find-telegram-admin";
import type { BotContext } from "../context";

export const loadSender: MiddlewareFn<BotContext> = async (ctx, next) => {
  const from = ctx.from;
  // Updates without a human sender (channel posts, other bots) have nothing for us to do.
  if (!from || from.is_bot) return;
  const username = from.username ?? null;
  const displayName = [from.first_name, from.last_name].filter(Boolean).join(" ") || null;
  const [found, admin] = await Promise.all([findAccountByTelegramId(from.id), findTelegramAdmin(from.id)]);
  let account = found;
  if (account && (account.telegramUsername !== username || account.displayName !== displayName)) {
    account = (await refreshTelegramProfile({ telegramId: from.id, username, displayName })) ?? account;
  }
  ctx.sender = {
    telegramId: from.id,
    username,
    displayName,
    account,
    admin,
    isAdmin: admin !== undefined,
    actor: `telegram:${from.id}`,
  };
  return next();
};
