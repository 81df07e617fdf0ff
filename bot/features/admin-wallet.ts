// /credit and /debit: the only way money enters or corrects a wallet. The command only records a
// pending request and shows Confirm / Cancel; the money moves when Confirm is pressed, once.
import { Composer, Markup } from "telegraf";
import { parseUsd } from "@/lib/money/parse-usd";
import { requestWalletAdjustment, MAX_ADJUSTMENT_NOTE_LENGTH } from "@/lib/wallet/request-wallet-adjustment";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { cancelWalletAdjustment } from "@/lib/wallet/cancel-wallet-adjustment";
import {
  ADJUSTMENT_TTL_MINUTES,
  type AdjustmentKind,
  type WalletAdjustmentRequest,
} from "@/lib/wallet/wallet-adjustment-request";
import { findAccount } from "@/lib/accounts/find-account";
import { ADMIN_CALLBACK_PREFIX, usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatUsd, parseArgs, replyHtml } from "../format";
import { describeAccountName, resolveAccountArg } from "../resolve-account-arg";

export const adminWallet = new Composer<BotContext>();

const CONFIRM = `${ADMIN_CALLBACK_PREFIX}adj:ok:`;
const CANCEL = `${ADMIN_CALLBACK_PREFIX}adj:no:`;
const BUTTON_PATTERN = new RegExp(`^${ADMIN_CALLBACK_PREFIX}adj:(ok|no):([A-Za-z0-9_-]{16})$`);

function verb(kind: AdjustmentKind): string {
  return kind === "credit" ? "Credit" : "Debit";
}

async function requestAdjustment(ctx: BotContext & { payload: string }, kind: AdjustmentKind): Promise<void> {
  const sender = senderOf(ctx);
  const usage = `Usage: ${escapeHtml(usageOf(kind))}\n&lt;account&gt; is an account id (42) or @username; the amount is USD, e.g. 25 or 19.99.`;
  const args = parseArgs(ctx.payload);
  const [reference, amountText] = args.words;
  const note = args.rest(2);
  if (!reference || !amountText || (kind === "debit" && !note)) {
    await replyHtml(ctx, kind === "debit" && reference && amountText ? `A debit needs a reason.\n${usage}` : usage);
    return;
  }
  const amount = parseUsd(amountText);
  if (!amount.ok) {
    await replyHtml(ctx, `${escapeHtml(amount.error)}.\n${usage}`);
    return;
  }
  if (note.length > MAX_ADJUSTMENT_NOTE_LENGTH) {
    await replyHtml(
      ctx,
      `The ${kind === "credit" ? "note" : "reason"} is too long (at most ${MAX_ADJUSTMENT_NOTE_LENGTH} characters).`,
    );
    return;
  }
  const account = await resolveAccountArg(ctx, reference);
  if (!account) return;
  const result = await requestWalletAdjustment({
    kind,
    accountId: account.id,
    amountCents: amount.cents,
    note: note || null,
    adminTelegramId: sender.telegramId,
    actor: sender.actor,
    // Named by @username: Confirm goes ahead only while this account still carries that name.
    accountUsername: reference.trim().startsWith("@") ? account.telegramUsername : null,
  });
  switch (result.status) {
    case "account_not_found":
      await replyHtml(ctx, `Account #${account.id} no longer exists.`);
      return;
    case "reason_required":
      await replyHtml(ctx, `A debit needs a reason.\n${usage}`);
      return;
    case "insufficient_balance":
      await replyHtml(
        ctx,
        `Refused: the balance of ${describeAccountName(account)} is ${formatUsd(result.balanceCents)}; a debit of ${formatUsd(amount.cents)} would take it below zero.`,
      );
      return;
  }
  const { request, balanceCents } = result;
  const after = kind === "credit" ? balanceCents + request.amountCents : balanceCents - request.amountCents;
  const lines = [
    `<b>${verb(kind)} ${formatUsd(request.amountCents)}</b> ${kind === "credit" ? "to" : "from"} account ${describeAccountName(account)}`,
    `Balance: ${formatUsd(balanceCents)} → ${formatUsd(after)}`,
  ];
  if (request.note)
    lines.push(`${kind === "credit" ? "Note" : "Reason"}: ${escapeHtml(request.note)} (the account holder sees it)`);
  lines.push(`Confirm within ${ADJUSTMENT_TTL_MINUTES} minutes.`);
  await replyHtml(ctx, lines.join("\n"), {
    ...Markup.inlineKeyboard([
      Markup.button.callback(`✅ Confirm ${verb(kind).toLowerCase()}`, CONFIRM + request.token),
      Markup.button.callback("Cancel", CANCEL + request.token),
    ]),
  });
}

adminWallet.command("credit", (ctx) => requestAdjustment(ctx, "credit"));
adminWallet.command("debit", (ctx) => requestAdjustment(ctx, "debit"));

/** What became of a request that was not carried out by this press. */
function resolvedText(request: WalletAdjustmentRequest): string {
  return `This ${request.kind} of ${formatUsd(request.amountCents)} was already ${request.status}.`;
}

async function accountName(accountId: number): Promise<string> {
  const lookup = await findAccount(String(accountId));
  return lookup.status === "found" ? describeAccountName(lookup.account) : `#${accountId}`;
}

adminWallet.action(BUTTON_PATTERN, async (ctx) => {
  const sender = senderOf(ctx);
  const [, choice, token = ""] = ctx.match;
  const input = { token, adminTelegramId: sender.telegramId, actor: sender.actor };

  if (choice === "no") {
    const result = await cancelWalletAdjustment(input);
    if (result.status === "cancelled") {
      await ctx.answerCbQuery("Cancelled");
      const { request } = result;
      const name = await accountName(request.accountId);
      await ctx.editMessageText(
        `Cancelled: nothing was ${request.kind === "credit" ? "credited" : "debited"} (${request.kind} of ${formatUsd(request.amountCents)}, account ${name}).`,
        {
          parse_mode: "HTML",
        },
      );
    } else if (result.status === "not_yours") {
      await ctx.answerCbQuery("Only the admin who made this request can cancel it.", { show_alert: true });
    } else if (result.status === "already_resolved") {
      await ctx.answerCbQuery(resolvedText(result.request));
    } else {
      await ctx.answerCbQuery("This request does not exist.");
    }
    return;
  }

  const result = await confirmWalletAdjustment(input);
  switch (result.status) {
    case "confirmed": {
      const { request } = result;
      await ctx.answerCbQuery(request.kind === "credit" ? "Credited" : "Debited");
      const name = await accountName(request.accountId);
      const lines = [
        request.kind === "credit"
          ? `✅ Credited <b>${formatUsd(request.amountCents)}</b> to account ${name}.`
          : `✅ Debited <b>${formatUsd(request.amountCents)}</b> from account ${name}.`,
        `New balance: ${formatUsd(result.balanceAfterCents)} (ledger entry #${result.ledgerEntryId}).`,
      ];
      if (request.note) lines.push(`${request.kind === "credit" ? "Note" : "Reason"}: ${escapeHtml(request.note)}`);
      const notified = await notifyHolder(ctx, result.accountTelegramId, request, result.balanceAfterCents);
      if (!notified) lines.push("The account holder could not be told (no Telegram chat, or the bot is blocked).");
      await ctx.editMessageText(lines.join("\n"), { parse_mode: "HTML" });
      return;
    }
    case "already_resolved":
      // A second press (or a redelivered one): the money moved at most once, on the first.
      await ctx.answerCbQuery(resolvedText(result.request));
      return;
    case "expired":
      await ctx.answerCbQuery("Expired");
      await ctx.editMessageText(
        `Expired: the ${result.request.kind} of ${formatUsd(result.request.amountCents)} was not confirmed within ${ADJUSTMENT_TTL_MINUTES} minutes, so nothing changed. Send the command again.`,
      );
      return;
    case "insufficient_balance":
      await ctx.answerCbQuery("Refused: balance too low");
      await ctx.editMessageText(
        `Refused: the balance is ${formatUsd(result.balanceCents)}; a debit of ${formatUsd(result.request.amountCents)} would take it below zero. Nothing changed.`,
      );
      return;
    case "username_changed": {
      const { request, currentUsername } = result;
      await ctx.answerCbQuery("Refused: the username changed");
      await ctx.editMessageText(
        `Refused: account #${request.accountId} is no longer @${escapeHtml(request.accountUsername ?? "")}` +
          ` (now ${currentUsername ? `@${escapeHtml(currentUsername)}` : "without a username"}), so the name may belong to someone else. ` +
          `Nothing was ${request.kind === "credit" ? "credited" : "debited"}. Check who you mean and send the command again, by account id if you can.`,
        { parse_mode: "HTML" },
      );
      return;
    }
    case "not_yours":
      await ctx.answerCbQuery("Only the admin who made this request can confirm it.", { show_alert: true });
      return;
    case "not_found":
      await ctx.answerCbQuery("This request does not exist.");
      return;
  }
});

/** Tells the holder about money that moved; false when Telegram refused (no chat, bot blocked). */
async function notifyHolder(
  ctx: BotContext,
  telegramId: number | null,
  request: WalletAdjustmentRequest,
  balanceAfterCents: number,
): Promise<boolean> {
  if (telegramId === null) return false;
  const lines = [
    request.kind === "credit"
      ? `💰 Your wallet was credited with <b>${formatUsd(request.amountCents)}</b>.`
      : `Your wallet was debited <b>${formatUsd(request.amountCents)}</b> as a correction.`,
  ];
  if (request.note) lines.push(`${request.kind === "credit" ? "Note" : "Reason"}: ${escapeHtml(request.note)}`);
  lines.push(`Balance: <b>${formatUsd(balanceAfterCents)}</b>`);
  try {
    await ctx.telegram.sendMessage(telegramId, lines.join("\n"), { parse_mode: "HTML" });
    return true;
  } catch (error) {
    // The money has moved and is committed; a failed notice must not turn into an error reply.
    console.warn(
      `[bot] could not notify telegram:${telegramId} of ${request.kind} #${request.id}: ${error instanceof Error ? error.message : error}`,
    );
    return false;
  }
}
