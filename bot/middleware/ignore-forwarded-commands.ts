// A forwarded message carries someone else's words: a "/credit @x 100" or "/revokekey ..." that an
// admin or a holder forwards (to show it, or tricked into it) must not run as if they had typed
// it. Commands in forwarded messages are answered with a note and otherwise ignored.
import type { MiddlewareFn } from "telegraf";
import type { BotContext } from "../context";

export const FORWARDED_COMMAND_NOTE = "Commands in forwarded messages are not run. To run one, type it yourself.";

export const ignoreForwardedCommands: MiddlewareFn<BotContext> = async (ctx, next) => {
  const message = ctx.message;
  // forward_origin since Bot API 7.0; forward_date on servers speaking the older protocol.
  const forwarded = message !== undefined && ("forward_origin" in message || "forward_date" in message);
  if (!forwarded) return next();
  const text = "text" in message ? message.text : "caption" in message ? message.caption : undefined;
  if (text?.trimStart().startsWith("/")) {
    await ctx.reply(FORWARDED_COMMAND_NOTE);
    return;
  }
  return next();
};
