// Who is talking: their account (if registered) and whether they are an admin, loaded once per
// update. Admin rights come from ADMIN_TELEGRAM_IDS or accounts.is_admin.
import type { MiddlewareFn } from "telegraf";
import { findAccountByTelegramId } from "@/lib/accounts/find-account";
import { refreshTelegramProfile } from "@/lib/accounts/refresh-telegram-profile";
import type { BotContext } from "../context";

export const loadSender: MiddlewareFn<BotContext> = async (ctx, next) => {
  const from = ctx.from;
  // Updates without a human sender (channel posts, other bots) have nothing for us to do.
  if (!from || from.is_bot) return;
  const username = from.username ?? null;
  const displayName = [from.first_name, from.last_name].filter(Boolean).join(" ") || null;
  let account = await findAccountByTelegramId(from.id);
  if (account && (account.telegramUsername !== username || account.displayName !== displayName)) {
    account = (await refreshTelegramProfile({ telegramId: from.id, username, displayName })) ?? account;
  }
  ctx.sender = {
    telegramId: from.id,
    username,
    displayName,
    account,
    isAdmin: ctx.config.adminTelegramIds.has(from.id) || account?.isAdmin === true,
    actor: `telegram:${from.id}`,
  };
  return next();
};
