// Last in the chain: anything no feature answered gets a pointer to /help instead of silence.
import { Composer } from "telegraf";
import type { BotContext } from "../context";
import { commandName } from "../middleware/admin-guard";

export const fallback = new Composer<BotContext>();

fallback.on("callback_query", async (ctx) => {
  // A button from an old message (or a bot version that no longer has it): stop the spinner.
  await ctx.answerCbQuery("This button no longer works.");
});

fallback.on("message", async (ctx) => {
  const command = commandName(ctx);
  await ctx.reply(
    command !== undefined ? `I don't know /${command}. /help lists what I can do.` : "Send /help to see what I can do.",
  );
});
