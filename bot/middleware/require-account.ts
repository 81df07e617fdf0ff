// Holder commands need a registered account; until /start the user is pointed there.
import type { MiddlewareFn } from "telegraf";
import type { BotContext } from "../context";

export const requireAccount: MiddlewareFn<BotContext> = async (ctx, next) => {
  if (ctx.sender?.account) return next();
  await ctx.reply("You are not registered yet: send /start first.");
};
