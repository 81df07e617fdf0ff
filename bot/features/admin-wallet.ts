// /credit and /debit: the only way money enters or corrects a wallet. The command only records a
// pending request and shows Confirm / Cancel; the money moves when Confirm is pressed, once. A credit
// above the owner-set amount (dashboard Settings) goes instead to the other linked admins who may
// credit, with Approve / Reject: the first press decides, and its requester cannot approve it.
import { Composer, Markup } from "telegraf";
import { parseUsd } from "@/lib/money/parse-usd";
import { requestWalletAdjustment, MAX_ADJUSTMENT_NOTE_LENGTH } from "@/lib/wallet/request-wallet-adjustment";
import { confirmWalletAdjustment } from "@/lib/wallet/confirm-wallet-adjustment";
import { cancelWalletAdjustment } from "@/lib/wallet/cancel-wallet-adjustment";
import {
  ADJUSTMENT_TTL_MINUTES,
  APPROVAL_TTL_HOURS,
  type AdjustmentKind,
  type WalletAdjustmentRequest,
} from "@/lib/wallet/wallet-adjustment-request";
import { findAccount } from "@/lib/accounts/find-account";
import { listTelegramAdmins } from "@/lib/admin-users/list-telegram-admins";
import { readLargeCreditThreshold } from "@/lib/settings/read-large-credit-threshold";
import type { AccountRecord } from "@/lib/accounts/account-record";
import { ADMIN_BUTTON_ROLE, ADMIN_CALLBACK_PREFIX, usageOf } from "../commands";
import { adminOf, senderOf, type BotContext } from "../context";
import { escapeHtml, formatUsd, parseArgs, replyHtml } from "../format";
import { describeAccountName, resolveAccountArg } from "../resolve-account-arg";
import { logger, messageOf } from "@/lib/observability/logger";

const log = logger("bot");

export const adminWallet = new Composer<BotContext>();

const CONFIRM = `${ADMIN_CALLBACK_PREFIX}adj:ok:`;
const CANCEL = `${ADMIN_CALLBACK_PREFIX}adj:no:`;
const BUTTON_PATTERN = new RegExp(`^${ADMIN_CALLBACK_PREFIX}adj:(ok|no):([A-Za-z0-9_-]{16})$`);

function verb(kind: AdjustmentKind): string {
  return kind === "credit" ? "Credit" : "Debit";
}

/** Who pressed or asked, as the wallet functions take it. */
function decider(ctx: BotContext, token: string) {
  const sender = senderOf(ctx);
  return { token, adminTelegramId: sender.telegramId, adminUserId: adminOf(ctx).adminId, actor: sender.actor };
}

async function requestAdjustment(ctx: BotContext & { payload: string }, kind: AdjustmentKind): Promise<void> {
  const sender = senderOf(ctx);
  const admin = adminOf(ctx);
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
    adminUserId: admin.adminId,
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
  if (request.needsApproval) {
    await askForApproval(ctx, request, account, lines);
    return;
  }
  lines.push(`Confirm within ${ADJUSTMENT_TTL_MINUTES} minutes.`);
  await replyHtml(ctx, lines.join("\n"), {
    ...Markup.inlineKeyboard([
      Markup.button.callback(`✅ Confirm ${verb(kind).toLowerCase()}`, CONFIRM + request.token),
      Markup.button.callback("Cancel", CANCEL + request.token),
    ]),
  });
}

/**
 * A large credit: the other linked admins who may credit get Approve / Reject; its requester gets a
 * Withdraw button. With nobody else to ask (or nobody reachable), it is withdrawn at once.
 */
async function askForApproval(
  ctx: BotContext,
  request: WalletAdjustmentRequest,
  account: AccountRecord,
  lines: string[],
): Promise<void> {
  const sender = senderOf(ctx);
  const admin = adminOf(ctx);
  const threshold = formatUsd((await readLargeCreditThreshold()).value);
  const approvers = (await listTelegramAdmins(ADMIN_BUTTON_ROLE)).filter(
    (other) => other.adminId !== admin.adminId && other.telegramId !== sender.telegramId,
  );
  const ask = [
    `🔐 <b>Approval needed</b> from a second admin (credits above ${threshold}).`,
    `Asked by ${escapeHtml(admin.email)} (${escapeHtml(sender.actor)}).`,
    ...lines,
    `Approve within ${APPROVAL_TTL_HOURS} hours; the first admin to press decides.`,
  ].join("\n");
  let told = 0;
  for (const approver of approvers) {
    try {
      await ctx.telegram.sendMessage(approver.telegramId, ask, {
        parse_mode: "HTML",
        ...Markup.inlineKeyboard([
          Markup.button.callback("✅ Approve credit", CONFIRM + request.token),
          Markup.button.callback("Reject", CANCEL + request.token),
        ]),
      });
      told++;
    } catch (error) {
      log.warn(`could not ask telegram:${approver.telegramId} to approve request #${request.id}: ${messageOf(error)}`);
    }
  }
  if (told === 0) {
    await cancelWalletAdjustment(decider(ctx, request.token));
    await replyHtml(
      ctx,
      [
        ...lines,
        "",
        `Not requested: credits above ${threshold} need a second admin's approval, and no other admin who may credit ${approvers.length === 0 ? "is linked to Telegram" : "could be told"}. Nothing was credited.`,
        "An owner can link another admin, or change the amount on the dashboard (Settings).",
      ].join("\n"),
    );
    return;
  }
  await replyHtml(
    ctx,
    [
      ...lines,
      "",
      `🔐 Above ${threshold}: a second admin must approve it. Asked ${told} admin${told === 1 ? "" : "s"}; it waits up to ${APPROVAL_TTL_HOURS} hours. You will be told what they decide.`,
    ].join("\n"),
    { ...Markup.inlineKeyboard([Markup.button.callback("Withdraw", CANCEL + request.token)]) },
  );
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

/** Tells the requester of a large credit what another admin decided (best effort, logged). */
async function tellRequester(ctx: BotContext, request: WalletAdjustmentRequest, text: string): Promise<void> {
  try {
    await ctx.telegram.sendMessage(request.adminTelegramId, text, { parse_mode: "HTML" });
  } catch (error) {
    log.warn(`could not tell telegram:${request.adminTelegramId} about request #${request.id}: ${messageOf(error)}`);
  }
}

adminWallet.action(BUTTON_PATTERN, async (ctx) => {
  const [, choice, token = ""] = ctx.match;
  const input = decider(ctx, token);
  const admin = adminOf(ctx);

  if (choice === "no") {
    const result = await cancelWalletAdjustment(input);
    if (result.status === "cancelled") {
      const { request, rejected } = result;
      await ctx.answerCbQuery(rejected ? "Rejected" : "Cancelled");
      const name = await accountName(request.accountId);
      const what = `${request.kind} of ${formatUsd(request.amountCents)}, account ${name}`;
      const nothing = `nothing was ${request.kind === "credit" ? "credited" : "debited"}`;
      await ctx.editMessageText(`${rejected ? "Rejected" : "Cancelled"}: ${nothing} (${what}).`, {
        parse_mode: "HTML",
      });
      if (rejected)
        await tellRequester(ctx, request, `❌ ${escapeHtml(admin.email)} rejected your ${what}: ${nothing}.`);
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
      await ctx.answerCbQuery(
        request.needsApproval ? "Approved and credited" : request.kind === "credit" ? "Credited" : "Debited",
      );
      const name = await accountName(request.accountId);
      const lines = [
        request.kind === "credit"
          ? `✅ Credited <b>${formatUsd(request.amountCents)}</b> to account ${name}.`
          : `✅ Debited <b>${formatUsd(request.amountCents)}</b> from account ${name}.`,
        `New balance: ${formatUsd(result.balanceAfterCents)} (ledger entry #${result.ledgerEntryId}).`,
      ];
      if (request.note) lines.push(`${request.kind === "credit" ? "Note" : "Reason"}: ${escapeHtml(request.note)}`);
      if (request.needsApproval) {
        lines.push(`Approved by you; asked by telegram:${request.adminTelegramId}.`);
        await tellRequester(
          ctx,
          request,
          `✅ ${escapeHtml(admin.email)} approved your credit: <b>${formatUsd(request.amountCents)}</b> credited to account ${name}. New balance: ${formatUsd(result.balanceAfterCents)}.`,
        );
      }
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
        `Expired: the ${result.request.kind} of ${formatUsd(result.request.amountCents)} was not ${
          result.request.needsApproval
            ? `approved within ${APPROVAL_TTL_HOURS} hours`
            : `confirmed within ${ADJUSTMENT_TTL_MINUTES} minutes`
        }, so nothing changed. Send the command again.`,
      );
      return;
    case "own_request":
      await ctx.answerCbQuery("A second admin must approve your own credit.", { show_alert: true });
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
    log.warn(`could not notify telegram:${telegramId} of ${request.kind} #${request.id}: ${messageOf(error)}`);
    return false;
  }
}
