// /account, /ban, /unban, /restrict, /block, /unblock, /tier. Each lib function writes its own audit entry.
import { Composer } from "telegraf";
import { describeAccount } from "@/lib/accounts/describe-account";
import { banAccount } from "@/lib/accounts/ban-account";
import { unbanAccount } from "@/lib/accounts/unban-account";
import { restrictAccount, MAX_RESTRICT_MINUTES } from "@/lib/accounts/restrict-account";
import { setAdminApiBlock } from "@/lib/accounts/set-admin-api-block";
import type { AccountRecord } from "@/lib/accounts/account-record";
import { setAccountTier } from "@/lib/pricing/set-account-tier";
import { NO_TIER } from "@/lib/pricing/price-tier-rules";
import { listPriceTierNames } from "@/lib/pricing/sql/list-price-tiers";
import { usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatSignedUsd, formatTime, formatUsd, parseArgs, replyHtml } from "../format";
import { describeAccountName, resolveAccountArg } from "../resolve-account-arg";
import { describeAllowlist } from "./keys";

export const adminAccounts = new Composer<BotContext>();

const MAX_REASON_LENGTH = 200;

function usage(command: string): string {
  return `Usage: ${escapeHtml(usageOf(command))}\n&lt;account&gt; is an account id (42) or @username.`;
}

/** One line per state that matters to the API, for /account and the replies of state changes. */
function stateLines(account: AccountRecord, now = Date.now()): string[] {
  const lines: string[] = [];
  lines.push(
    account.bannedAt
      ? `⛔ Banned since ${formatTime(account.bannedAt)}${account.banReason ? `: ${escapeHtml(account.banReason)}` : ""}`
      : "Not banned",
  );
  if (account.restrictedUntil && account.restrictedUntil.getTime() > now) {
    lines.push(
      `⏳ Restricted until ${formatTime(account.restrictedUntil)}${account.restrictReason ? `: ${escapeHtml(account.restrictReason)}` : ""}`,
    );
  }
  lines.push(
    `API access: ${account.apiEnabled ? "on" : "off"} (holder)${account.apiDisabledByAdmin ? ", 🚫 blocked by admin" : ""}`,
  );
  return lines;
}

adminAccounts.command("account", async (ctx) => {
  const [reference] = parseArgs(ctx.payload).words;
  if (!reference) {
    await replyHtml(ctx, usage("account"));
    return;
  }
  const found = await resolveAccountArg(ctx, reference);
  if (!found) return;
  const description = await describeAccount(found.id);
  if (!description) {
    await replyHtml(ctx, `Account #${found.id} no longer exists.`);
    return;
  }
  const { account, keys, recentLedger, orderCount, priceTier } = description;
  const lines = [
    `<b>Account ${describeAccountName(account)}</b>`,
    `Telegram id: ${account.telegramId ?? "none"} · registered ${formatTime(account.createdAt)}`,
    ...stateLines(account),
    `Price tier: ${priceTier ? escapeHtml(priceTier) : "none (list prices)"}`,
    `Balance: <b>${formatUsd(account.balanceCents)}</b> (credited in total ${formatUsd(account.totalCreditedCents)}) · orders: ${orderCount}`,
    "",
    keys.length === 0 ? "No active API keys." : `<b>API keys (${keys.length})</b>`,
  ];
  for (const key of keys) {
    lines.push(
      `<code>${escapeHtml(key.prefix)}</code> created ${formatTime(key.createdAt)}, last used ${formatTime(key.lastUsedAt)}`,
    );
    lines.push(`  IPs: ${describeAllowlist(key)}`);
  }
  lines.push("", recentLedger.length === 0 ? "No ledger entries." : "<b>Recent ledger</b>");
  for (const entry of recentLedger) {
    const reason = entry.reason ? ` — ${escapeHtml(entry.reason)}` : "";
    const order = entry.orderId !== null ? ` order ${entry.orderId}` : "";
    lines.push(
      `${formatTime(entry.createdAt)} ${entry.kind} ${formatSignedUsd(entry.amountCents)} → ${formatUsd(entry.balanceAfterCents)} by ${escapeHtml(entry.actor)}${order}${reason}`,
    );
  }
  await replyHtml(ctx, lines.join("\n"));
});

adminAccounts.command("ban", async (ctx) => {
  const sender = senderOf(ctx);
  const args = parseArgs(ctx.payload);
  const [reference] = args.words;
  const reason = args.rest(1).slice(0, MAX_REASON_LENGTH) || null;
  if (!reference) {
    await replyHtml(ctx, usage("ban"));
    return;
  }
  const account = await resolveAccountArg(ctx, reference);
  if (!account) return;
  const result = await banAccount({ accountId: account.id, actor: sender.actor, reason });
  if (result.status === "not_found") return void (await replyHtml(ctx, `Account #${account.id} no longer exists.`));
  const head = result.status === "banned" ? "⛔ Banned" : "Already banned (reason updated):";
  await replyHtml(ctx, `${head} account ${describeAccountName(result.account)}. API calls answer ACCOUNT_BANNED.`);
});

adminAccounts.command("unban", async (ctx) => {
  const sender = senderOf(ctx);
  const [reference, extra] = parseArgs(ctx.payload).words;
  if (!reference || extra) {
    await replyHtml(ctx, usage("unban"));
    return;
  }
  const account = await resolveAccountArg(ctx, reference);
  if (!account) return;
  const result = await unbanAccount({ accountId: account.id, actor: sender.actor });
  if (result.status === "not_found") return void (await replyHtml(ctx, `Account #${account.id} no longer exists.`));
  await replyHtml(
    ctx,
    result.status === "unbanned"
      ? `Unbanned account ${describeAccountName(result.account)}.`
      : `Account ${describeAccountName(result.account)} was not banned.`,
  );
});

adminAccounts.command("restrict", async (ctx) => {
  const sender = senderOf(ctx);
  const args = parseArgs(ctx.payload);
  const [reference, minutesText] = args.words;
  const reason = args.rest(2).slice(0, MAX_REASON_LENGTH) || null;
  if (!reference || !minutesText) {
    await replyHtml(ctx, `${usage("restrict")}\nMinutes: 1 to ${MAX_RESTRICT_MINUTES}; 0 lifts a restriction.`);
    return;
  }
  if (!/^\d{1,6}$/.test(minutesText) || Number(minutesText) > MAX_RESTRICT_MINUTES) {
    await replyHtml(
      ctx,
      `Minutes must be a whole number from 0 to ${MAX_RESTRICT_MINUTES} (0 lifts a restriction).\n${usage("restrict")}`,
    );
    return;
  }
  const account = await resolveAccountArg(ctx, reference);
  if (!account) return;
  const result = await restrictAccount({
    accountId: account.id,
    minutes: Number(minutesText),
    actor: sender.actor,
    reason,
  });
  if (result.status === "not_found") return void (await replyHtml(ctx, `Account #${account.id} no longer exists.`));
  await replyHtml(
    ctx,
    result.status === "lifted"
      ? `Restriction lifted for account ${describeAccountName(result.account)}.`
      : `⏳ Account ${describeAccountName(result.account)} is restricted until ${formatTime(result.account.restrictedUntil)}: API calls answer ACCOUNT_RESTRICTED.`,
  );
});

for (const [command, blocked] of [
  ["block", true],
  ["unblock", false],
] as const) {
  adminAccounts.command(command, async (ctx) => {
    const sender = senderOf(ctx);
    const [reference, extra] = parseArgs(ctx.payload).words;
    if (!reference || extra) {
      await replyHtml(ctx, usage(command));
      return;
    }
    const account = await resolveAccountArg(ctx, reference);
    if (!account) return;
    const result = await setAdminApiBlock({ accountId: account.id, blocked, actor: sender.actor });
    if (result.status === "not_found") return void (await replyHtml(ctx, `Account #${account.id} no longer exists.`));
    const name = describeAccountName(result.account);
    const text = blocked
      ? `${result.status === "updated" ? "🚫 Blocked" : "Already blocked:"} API access of account ${name}. API calls answer API_DISABLED_BY_ADMIN.`
      : `${result.status === "updated" ? "Unblocked" : "Was not blocked:"} API access of account ${name}.${result.account.apiEnabled ? "" : " (The holder's own API switch is off.)"}`;
    await replyHtml(ctx, text);
  });
}

/** "gold" or "list prices", for /tier's replies. */
const tierWords = (tier: string | null) => (tier ? `tier ${escapeHtml(tier)}` : "list prices");

adminAccounts.command("tier", async (ctx) => {
  const sender = senderOf(ctx);
  const [reference, tierName, extra] = parseArgs(ctx.payload).words;
  if (!reference || !tierName || extra) {
    const tiers = await listPriceTierNames();
    const known = tiers.length
      ? `Tiers: ${tiers.map(escapeHtml).join(", ")}.`
      : "No tiers yet (the dashboard's Tiers page).";
    await replyHtml(
      ctx,
      `${usage("tier")}
${known} <code>${NO_TIER}</code> means list prices.`,
    );
    return;
  }
  const account = await resolveAccountArg(ctx, reference);
  if (!account) return;
  const result = await setAccountTier({ accountId: account.id, tierName, actor: sender.actor });
  switch (result.status) {
    case "not_found":
      return void (await replyHtml(ctx, `Account #${account.id} no longer exists.`));
    case "test_account":
      return void (await replyHtml(
        ctx,
        `Account #${account.id} is a test wallet: it pays the tier of its holder, account #${result.holderId}.`,
      ));
    case "no_such_tier": {
      const tiers = await listPriceTierNames();
      const known = tiers.length ? `Tiers: ${tiers.map(escapeHtml).join(", ")}` : "There are no tiers yet";
      return void (await replyHtml(
        ctx,
        `No tier <code>${escapeHtml(result.tier)}</code>. ${known}; <code>${NO_TIER}</code> means list prices.`,
      ));
    }
    case "unchanged":
      return void (await replyHtml(
        ctx,
        `Account ${describeAccountName(result.account)} already pays ${tierWords(result.tier)}.`,
      ));
    case "updated":
      await replyHtml(
        ctx,
        `Account ${describeAccountName(result.account)} now pays ${tierWords(result.tier)} (was ${tierWords(result.previous)}). New orders only: orders already placed keep what they were charged.`,
      );
  }
});
