// /newkey, /keys, /revokekey, /keylimit. The plain key appears in exactly one message (the /newkey reply) and
// nowhere else: not in logs, not in the audit log, not in any later reply.
import { Composer } from "telegraf";
import { issueApiKey, MAX_ACTIVE_KEYS } from "@/lib/accounts/issue-api-key";
import { listApiKeys, type ApiKeySummary } from "@/lib/accounts/list-api-keys";
import { revokeApiKey } from "@/lib/accounts/revoke-api-key";
import { setKeySpendingLimit } from "@/lib/accounts/set-key-spending-limit";
import { formatUsd, parseUsd } from "@/lib/money/parse-usd";
import { displayPrefix, isWellFormedApiKey } from "@/lib/auth/api-key-format";
import { usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatTime, parseArgs, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";
import { accountWarnings } from "./start";
import { env } from "@/lib/config/env";
import { TEST_MODE_OFF_REPLY } from "./test-mode";

export const keys = new Composer<BotContext>();

/** How a key's IP list affects API calls, in words. */
export function describeAllowlist(key: Pick<ApiKeySummary, "cidrs" | "requireIpAllowlist">): string {
  if (key.cidrs.length > 0) {
    return `${key.cidrs.map((cidr) => `<code>${escapeHtml(cidr)}</code>`).join(", ")}${key.requireIpAllowlist ? " (required)" : ""}`;
  }
  return key.requireIpAllowlist
    ? "empty, but required: API calls are refused (IP_ALLOWLIST_REQUIRED) until you add an address"
    : "empty: any IP can use this key";
}

/** A key's daily spending limit and what it spent today, in words. */
function describeSpendingLimit(key: Pick<ApiKeySummary, "dailyLimitCents" | "spentTodayCents">): string {
  if (key.dailyLimitCents === null) return "none (/keylimit sets one)";
  return `${formatUsd(key.dailyLimitCents)} a day (UTC), ${formatUsd(key.spentTodayCents)} spent today`;
}

// Someone pasting the whole key gets the same result as typing its prefix.
const prefixOf = (given: string) => (isWellFormedApiKey(given) ? displayPrefix(given) : given);

const noSuchKey = (prefix: string) =>
  `You have no active key with prefix <code>${escapeHtml(prefix)}</code>. /keys lists your keys.`;

/** The largest daily limit a holder can set: $1,000,000.00. */
const MAX_DAILY_LIMIT_CENTS = 100_000_000;

keys.command("newkey", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const account = sender.account!;
  const [mode] = parseArgs(ctx.payload).words;
  if (mode !== undefined && mode.toLowerCase() !== "test") {
    await replyHtml(ctx, `Usage: ${escapeHtml(usageOf("newkey"))}`);
    return;
  }
  const livemode = mode === undefined;
  if (!livemode && !env().testMode) {
    await ctx.reply(TEST_MODE_OFF_REPLY);
    return;
  }
  const issued = await issueApiKey(account.id, sender.actor, { livemode });
  if (issued.status === "limit_reached") {
    await replyHtml(
      ctx,
      `You already have ${MAX_ACTIVE_KEYS} active keys. Revoke one with /revokekey &lt;prefix&gt; first.`,
    );
    return;
  }
  if (issued.status === "not_found") throw new Error(`account ${account.id} vanished during /newkey`);
  const lines = [
    livemode
      ? "Your new API key. It is shown only this once: store it now."
      : "Your new test key: play money from your test wallet (/testcredit), orders fulfilled by the sandbox, " +
        "never your live balance or stock. It is shown only this once: store it now.",
    "",
    `<code>${issued.key}</code>`,
    "",
    `From now on it is shown as <code>${issued.prefix}</code>. Send it in the <code>X-API-Key</code> header.`,
  ];
  if (!account.apiEnabled) lines.push("API access is off for your account: send /api on to use the key.");
  // With several keys, /ip commands need the prefix, so the tip shows it.
  const severalKeys = (await listApiKeys(account.id)).length > 1;
  lines.push(
    `Tip: /ip add &lt;your server's IP&gt;${severalKeys ? ` ${issued.prefix}` : ""} allows only your servers to use it.`,
  );
  lines.push("Delete this message once the key is stored safely.");
  try {
    await replyHtml(ctx, lines.join("\n"));
  } catch (error) {
    // Nobody saw the key, so nobody can use it: revoke it instead of leaving an unknown live key.
    // The Telegram error carries the message text (the key), so only a sanitised error goes on.
    await revokeApiKey(account.id, issued.prefix, sender.actor).catch(() => undefined);
    throw new Error(
      `could not deliver a new API key (${issued.prefix}, now revoked): ${error instanceof Error ? error.message : "send failed"}`,
    );
  }
});

keys.command("keys", requireAccount, async (ctx) => {
  const account = senderOf(ctx).account!;
  const list = await listApiKeys(account.id);
  if (list.length === 0) {
    await ctx.reply("You have no API keys. /newkey creates one.");
    return;
  }
  const lines = [`<b>Your API keys</b> (API access: ${account.apiEnabled ? "on" : "off — /api on turns it on"})`, ""];
  for (const key of list) {
    lines.push(`<code>${escapeHtml(key.prefix)}</code>${key.livemode ? "" : " (test)"}`);
    lines.push(`  created ${formatTime(key.createdAt)}, last used ${formatTime(key.lastUsedAt)}`);
    lines.push(`  IP allowlist: ${describeAllowlist(key)}`);
    lines.push(`  spending limit: ${describeSpendingLimit(key)}`);
  }
  const warnings = accountWarnings(account);
  if (warnings.length > 0) lines.push("", ...warnings);
  await replyHtml(ctx, lines.join("\n"));
});

keys.command("revokekey", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const account = sender.account!;
  const [given] = parseArgs(ctx.payload).words;
  if (!given) {
    const list = await listApiKeys(account.id);
    const prefixes = list.map((key) => `<code>${escapeHtml(key.prefix)}</code>`).join(", ");
    await replyHtml(
      ctx,
      `Usage: ${escapeHtml(usageOf("revokekey"))}${prefixes ? `\nYour keys: ${prefixes}` : "\nYou have no active keys."}`,
    );
    return;
  }
  const prefix = prefixOf(given);
  const result = await revokeApiKey(account.id, prefix, sender.actor);
  if (result.status === "not_found") return replyHtml(ctx, noSuchKey(prefix));
  await replyHtml(
    ctx,
    `Key <code>${escapeHtml(result.prefix)}</code> is revoked: API calls with it now answer INVALID_API_KEY.`,
  );
});

keys.command("keylimit", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const account = sender.account!;
  const [given, amount] = parseArgs(ctx.payload).words;
  if (!given || !amount) {
    await replyHtml(ctx, `Usage: ${escapeHtml(usageOf("keylimit"))}`);
    return;
  }
  let limitCents: number | null = null;
  if (amount.toLowerCase() !== "off") {
    const parsed = parseUsd(amount, MAX_DAILY_LIMIT_CENTS);
    if (!parsed.ok) {
      await replyHtml(ctx, `${escapeHtml(parsed.error)}, or off.\nUsage: ${escapeHtml(usageOf("keylimit"))}`);
      return;
    }
    limitCents = parsed.cents;
  }
  const prefix = prefixOf(given);
  const result = await setKeySpendingLimit(account.id, prefix, limitCents, sender.actor);
  if (result.status === "not_found") return replyHtml(ctx, noSuchKey(prefix));
  await replyHtml(
    ctx,
    limitCents === null
      ? `Key <code>${escapeHtml(result.prefix)}</code> has no spending limit now.`
      : `Key <code>${escapeHtml(result.prefix)}</code> may charge at most ${formatUsd(limitCents)} a day (UTC). ` +
          "An order past it answers KEY_SPENDING_LIMIT and charges nothing.",
  );
});
