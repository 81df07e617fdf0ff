// /link <code>: links the sender's Telegram account to the dashboard admin who got the code (Your
// account on the dashboard). From the next update on, the admin commands follow that admin's role.
import { Composer } from "telegraf";
import { linkTelegramAccount } from "@/lib/admin-users/link-telegram-account";
import { LINK_CODE_TTL_MINUTES } from "@/lib/admin-users/telegram-link-code";
import { usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, parseArgs, replyHtml } from "../format";

export const link = new Composer<BotContext>();

link.command("link", async (ctx) => {
  const sender = senderOf(ctx);
  const code = parseArgs(ctx.payload).words.join("");
  if (!code) {
    await replyHtml(
      ctx,
      `Usage: ${escapeHtml(usageOf("link"))}\nAdmins get the code on the dashboard: Your account → Telegram.`,
    );
    return;
  }
  const result = await linkTelegramAccount({ code, telegramId: sender.telegramId, actor: sender.actor });
  switch (result.status) {
    case "invalid_code":
      await replyHtml(
        ctx,
        `That code is wrong, expired or already used. Get a new one on the dashboard (Your account → Telegram); each works once, for ${LINK_CODE_TTL_MINUTES} minutes.`,
      );
      return;
    case "telegram_taken":
      await replyHtml(
        ctx,
        "This Telegram account is already linked to another admin. That admin unlinks it on the dashboard first; then get a new code.",
      );
      return;
    case "linked":
      await replyHtml(
        ctx,
        `✅ Linked to admin <b>${escapeHtml(result.email)}</b> (role ${escapeHtml(result.role)}). ` +
          "Admin commands here follow that role; /help lists them. Unlink on the dashboard (Your account).",
      );
  }
});
