// The bot shows API keys, balances and account details: none of it may land in a group chat. Only
// private chats are served; a command sent in a group gets a pointer to the private chat.
import type { MiddlewareFn } from "telegraf";
import type { BotContext } from "../context";

export const privateChatOnly: MiddlewareFn<BotContext> = async (ctx, next) => {
  if (ctx.chat?.type === "private") return next();
  if (ctx.callbackQuery) {
    await ctx.answerCbQuery("Please use this bot in a private chat.");
    return;
  }
  const text = ctx.message && "text" in ctx.message ? ctx.message.text : undefined;
  if (ctx.chat && text?.startsWith("/")) {
    await ctx.reply("I only work in a private chat: open a chat with me and send the command there.");
  }
  // Anything else outside a private chat (group chatter, channel posts, inline queries) is ignored.
};
