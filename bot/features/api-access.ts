// /api on|off: the holder's own switch for API access.
import { Composer } from "telegraf";
import { setApiAccess } from "@/lib/accounts/set-api-access";
import { listApiKeys } from "@/lib/accounts/list-api-keys";
import { usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { parseArgs } from "../format";
import { requireAccount } from "../middleware/require-account";

export const apiAccess = new Composer<BotContext>();

apiAccess.command("api", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const account = sender.account!;
  const { words } = parseArgs(ctx.payload);
  const choice = words.length === 1 ? words[0]?.toLowerCase() : undefined;
  if (choice !== "on" && choice !== "off") {
    await ctx.reply(`Usage: ${usageOf("api")}\nAPI access is ${account.apiEnabled ? "on" : "off"} now.`);
    return;
  }
  const result = await setApiAccess(account.id, choice === "on", sender.actor);
  if (result.status === "not_found") throw new Error(`account ${account.id} vanished during /api`);
  const lines: string[] = [];
  if (choice === "on") {
    lines.push(result.status === "updated" ? "API access is now on." : "API access was already on.");
    if (result.apiDisabledByAdmin)
      lines.push(
        "Note: an admin has blocked API access for this account, so calls still answer API_DISABLED_BY_ADMIN.",
      );
    if ((await listApiKeys(account.id)).length === 0) lines.push("You have no API key yet: /newkey creates one.");
  } else {
    lines.push(
      result.status === "updated"
        ? "API access is now off: API calls answer API_DISABLED."
        : "API access was already off.",
    );
  }
  await ctx.reply(lines.join("\n"));
});
