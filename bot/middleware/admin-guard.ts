// Admin commands and admin buttons need the role their dashboard action needs (bot/commands.ts),
// held by the active admin user linked to the sender's Telegram account. Anyone else gets a refusal
// and goes no further: nothing is looked up, nothing changes. (bot/index.ts also mounts the admin
// features only for linked admins, so a command missing from ADMIN_COMMANDS still cannot run for others.)
import type { MiddlewareFn } from "telegraf";
import { telegramAdminMay } from "@/lib/admin-users/telegram-admin";
import { roleAllows, type AdminRole } from "@/lib/admin-users/admin-role";
import { ADMIN_BUTTON_ROLE, ADMIN_CALLBACK_PREFIX, roleOfAdminCommand } from "../commands";
import type { BotContext } from "../context";
import { logger } from "@/lib/observability/logger";

const NOT_AN_ADMIN = "Sorry, this command is only for admins.";

/** The command name of a message such as "/credit@MyBot 12 5", or undefined when it is not a command. */
export function commandName(ctx: BotContext): string | undefined {
  const message = ctx.message;
  if (!message || !("text" in message)) return undefined;
  const entity = message.entities?.[0];
  if (entity?.type !== "bot_command" || entity.offset !== 0) return undefined;
  return message.text.slice(1, entity.length).split("@")[0];
}

/** Why the sender may not do what needs `role`: as a reply (long) and as a button alert (short). */
function refusal(ctx: BotContext, what: string, role: AdminRole): { reply: string; alert: string } {
  const admin = ctx.sender?.admin;
  if (!admin) {
    if (ctx.from && ctx.config.adminTelegramIds.has(ctx.from.id)) {
      const text =
        "Admin commands need a dashboard admin linked to this Telegram account (ADMIN_TELEGRAM_IDS alone grants none). " +
        "Sign in to the dashboard, open Your account, get a Telegram link code and send it here after /link.";
      return { reply: text, alert: "Link your dashboard admin first: send /link and the code from the dashboard." };
    }
    return { reply: NOT_AN_ADMIN, alert: "Only admins can do this." };
  }
  const text = roleAllows(admin.role, role)
    ? `${what} needs two-factor on for ${admin.email}, as the dashboard does: enrol again there (Your account).`
    : `${what} needs the ${role} role; ${admin.email} is ${admin.role === "operator" ? "an" : "a"} ${admin.role}.`;
  return { reply: `Sorry, ${text}`, alert: text };
}

export const adminGuard: MiddlewareFn<BotContext> = async (ctx, next) => {
  const command = commandName(ctx);
  const data = ctx.callbackQuery && "data" in ctx.callbackQuery ? ctx.callbackQuery.data : undefined;
  const commandRole = command === undefined ? undefined : roleOfAdminCommand(command);
  const adminButton = data?.startsWith(ADMIN_CALLBACK_PREFIX) === true;
  const needed = commandRole ?? (adminButton ? ADMIN_BUTTON_ROLE : undefined);
  if (needed === undefined) return next();
  const admin = ctx.sender?.admin;
  if (admin && telegramAdminMay(admin, needed)) return next();
  const what = commandRole ? `/${command}` : "This button";
  logger("bot").warn(`refused ${commandRole ? `/${command}` : "an admin button"} from telegram:${ctx.from?.id}`);
  const answer = refusal(ctx, what, needed);
  if (adminButton && !commandRole) {
    await ctx.answerCbQuery(answer.alert, { show_alert: true });
  } else {
    await ctx.reply(answer.reply);
  }
};
