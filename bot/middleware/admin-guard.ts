// Admin commands and admin buttons from anyone who is not an admin get a refusal and go no
// further: nothing is looked up, nothing changes. (bot/index.ts also mounts the admin features
// only for admins, so a command missing from ADMIN_COMMANDS still cannot run for others.)
import type { MiddlewareFn } from "telegraf";
import { ADMIN_CALLBACK_PREFIX, ADMIN_COMMAND_NAMES } from "../commands";
import type { BotContext } from "../context";

/** The command name of a message such as "/credit@MyBot 12 5", or undefined when it is not a command. */
export function commandName(ctx: BotContext): string | undefined {
  const message = ctx.message;
  if (!message || !("text" in message)) return undefined;
  const entity = message.entities?.[0];
  if (entity?.type !== "bot_command" || entity.offset !== 0) return undefined;
  return message.text.slice(1, entity.length).split("@")[0];
}

export const adminGuard: MiddlewareFn<BotContext> = async (ctx, next) => {
  const command = commandName(ctx);
  const data = ctx.callbackQuery && "data" in ctx.callbackQuery ? ctx.callbackQuery.data : undefined;
  const adminCommand = command !== undefined && ADMIN_COMMAND_NAMES.includes(command);
  const adminButton = data?.startsWith(ADMIN_CALLBACK_PREFIX) === true;
  if (!adminCommand && !adminButton) return next();
  if (ctx.sender?.isAdmin) return next();
  console.warn(`[bot] refused ${adminCommand ? `/${command}` : "an admin button"} from telegram:${ctx.from?.id}`);
  if (adminButton) {
    await ctx.answerCbQuery("Only admins can do this.", { show_alert: true });
  } else {
    await ctx.reply("Sorry, this command is only for admins.");
  }
};
