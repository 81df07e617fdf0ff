// /testcredit and /testreset: the holder's test wallet of test mode (README: Test mode). Play money,
// no admin: live money still moves only through an admin's /credit.
import { Composer } from "telegraf";
import { env } from "@/lib/config/env";
import { formatUsd, parseUsd } from "@/lib/money/parse-usd";
import { creditTestWallet, resetTestWallet, TEST_CREDIT_DAILY_CAP_CENTS } from "@/lib/wallet/test-wallet";
import { usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, parseArgs, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";

export const testMode = new Composer<BotContext>();

export const TEST_MODE_OFF_REPLY = "Test mode is turned off on this service.";

testMode.command("testcredit", requireAccount, async (ctx) => {
  if (!env().testMode) return void (await ctx.reply(TEST_MODE_OFF_REPLY));
  const sender = senderOf(ctx);
  const [amountText] = parseArgs(ctx.payload).words;
  const amount = amountText ? parseUsd(amountText, TEST_CREDIT_DAILY_CAP_CENTS) : undefined;
  if (!amount?.ok) {
    const why = amount ? `${escapeHtml(amount.error)}.\n` : "";
    return void (await replyHtml(ctx, `${why}Usage: ${escapeHtml(usageOf("testcredit"))}`));
  }
  const result = await creditTestWallet(sender.account!.id, amount.cents, sender.actor);
  if (result.status === "over_daily_cap") {
    const left = result.capCents - result.creditedTodayCents;
    return void (await replyHtml(
      ctx,
      `Test credits are capped at ${formatUsd(result.capCents)} a day (UTC); ${formatUsd(left)} is left today.`,
    ));
  }
  await replyHtml(
    ctx,
    `Test wallet credited ${formatUsd(amount.cents)} of play money: test balance <b>${formatUsd(result.balanceCents)}</b>.\n` +
      "Test keys (/newkey test) spend it; your live balance is unchanged.",
  );
});

testMode.command("testreset", requireAccount, async (ctx) => {
  if (!env().testMode) return void (await ctx.reply(TEST_MODE_OFF_REPLY));
  const sender = senderOf(ctx);
  const { removedCents } = await resetTestWallet(sender.account!.id, sender.actor);
  await replyHtml(
    ctx,
    removedCents > 0
      ? `Test wallet emptied (${formatUsd(removedCents)} of play money removed): test balance <b>$0.00</b>.`
      : "Your test wallet is already empty.",
  );
});
