// /ip add|remove|list|require: the IP allowlist of the account's key. The key prefix is needed only
// when the account has more than one key; the lib functions decide and say so.
import { Composer } from "telegraf";
import {
  addAllowedIp,
  removeAllowedIp,
  setIpAllowlistRequired,
  type KeySelectionFailure,
} from "@/lib/accounts/manage-ip-allowlist";
import { listApiKeys } from "@/lib/accounts/list-api-keys";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, parseArgs, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";
import { describeAllowlist } from "./keys";

export const ipAllowlist = new Composer<BotContext>();

const USAGE = [
  "Usage:",
  "/ip add &lt;ip-or-cidr&gt; [key-prefix]",
  "/ip remove &lt;ip-or-cidr&gt; [key-prefix]",
  "/ip list",
  "/ip require on|off [key-prefix]",
  "Examples: /ip add 203.0.113.7, /ip add 203.0.113.0/24, /ip add 2001:db8::/48",
].join("\n");

function keySelectionMessage(failure: KeySelectionFailure, example: string): string {
  switch (failure.status) {
    case "no_keys":
      return "You have no API key yet: /newkey creates one.";
    case "key_not_found":
      return `You have no active key with prefix <code>${escapeHtml(failure.prefix)}</code>. /keys lists your keys.`;
    case "key_required":
      return [
        "You have more than one key: add the key prefix at the end, for example",
        `<code>${escapeHtml(example)} ${escapeHtml(failure.prefixes[0] ?? "")}</code>`,
        `Your keys: ${failure.prefixes.map((prefix) => `<code>${escapeHtml(prefix)}</code>`).join(", ")}`,
      ].join("\n");
  }
}

function invalidAddressMessage(input: string): string {
  return `<code>${escapeHtml(input)}</code> is not an IP address or CIDR range.\nExamples: 203.0.113.7, 203.0.113.0/24, 2001:db8::/48`;
}

ipAllowlist.command("ip", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const accountId = sender.account!.id;
  const { words } = parseArgs(ctx.payload);
  const sub = words[0]?.toLowerCase();

  if (sub === "list" && words.length === 1) {
    const list = await listApiKeys(accountId);
    if (list.length === 0) {
      await ctx.reply("You have no API keys. /newkey creates one.");
      return;
    }
    const lines = ["<b>IP allowlists</b>"];
    for (const key of list) lines.push(`<code>${escapeHtml(key.prefix)}</code>: ${describeAllowlist(key)}`);
    await replyHtml(ctx, lines.join("\n"));
    return;
  }

  if ((sub === "add" || sub === "remove") && (words.length === 2 || words.length === 3)) {
    const [, address = "", keyPrefix] = words;
    const input = { accountId, address, keyPrefix, actor: sender.actor };
    const result = sub === "add" ? await addAllowedIp(input) : await removeAllowedIp(input);
    switch (result.status) {
      case "invalid_address":
        await replyHtml(ctx, invalidAddressMessage(result.input));
        return;
      case "no_keys":
      case "key_not_found":
      case "key_required":
        await replyHtml(ctx, keySelectionMessage(result, `/ip ${sub} ${address}`));
        return;
      case "limit_reached":
        await replyHtml(
          ctx,
          `Key <code>${escapeHtml(result.key.prefix)}</code> already has ${result.limit} entries: remove one first, or use a CIDR range.`,
        );
        return;
    }
    const key = `<code>${escapeHtml(result.key.prefix)}</code>`;
    const cidr = `<code>${escapeHtml(result.cidr)}</code>`;
    const now = `\nAllowlist of ${key}: ${describeAllowlist({ cidrs: result.cidrs, requireIpAllowlist: result.requireIpAllowlist })}`;
    const message = {
      added: `Added ${cidr} to key ${key}. Only listed addresses can use this key now.`,
      already_present: `${cidr} is already on the allowlist of key ${key}.`,
      removed: `Removed ${cidr} from key ${key}.`,
      not_present: `${cidr} is not on the allowlist of key ${key}.`,
    }[result.status];
    await replyHtml(ctx, message + now);
    return;
  }

  if (sub === "require" && (words.length === 2 || words.length === 3)) {
    const choice = words[1]?.toLowerCase();
    if (choice === "on" || choice === "off") {
      const result = await setIpAllowlistRequired({
        accountId,
        required: choice === "on",
        keyPrefix: words[2],
        actor: sender.actor,
      });
      if (result.status === "no_keys" || result.status === "key_not_found" || result.status === "key_required") {
        await replyHtml(ctx, keySelectionMessage(result, `/ip require ${choice}`));
        return;
      }
      const key = `<code>${escapeHtml(result.key.prefix)}</code>`;
      const state = result.required ? "requires an IP allowlist" : "no longer requires an IP allowlist";
      const lines = [`${result.status === "updated" ? "Key" : "Nothing changed: key"} ${key} ${state}.`];
      lines.push(`Allowlist: ${describeAllowlist({ cidrs: result.cidrs, requireIpAllowlist: result.required })}`);
      await replyHtml(ctx, lines.join("\n"));
      return;
    }
  }

  await replyHtml(ctx, USAGE);
});
