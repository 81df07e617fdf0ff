// Approve and Reject on a deposit request (bot/features/deposits.ts tells the admins). The buttons
// need the role /credit needs (the admin guard checks every "adm:" button); the first press decides
// (lib/deposits/decide-deposit.ts locks the request), a later one, here or on the dashboard, reads
// the decision. Reject asks for the reason the holder is told.
import { Composer, Markup } from "telegraf";
import { approveDeposit, rejectDeposit, type ApproveDepositResult } from "@/lib/deposits/decide-deposit";
import type { DepositRequest } from "@/lib/deposits/deposit-request";
import { ADMIN_CALLBACK_PREFIX } from "../commands";
import { adminOf, senderOf, type BotContext } from "../context";
import { formatUsd, replyHtml } from "../format";
import { logger, messageOf } from "@/lib/observability/logger";

export const adminDeposits = new Composer<BotContext>();

const APPROVE = `${ADMIN_CALLBACK_PREFIX}dep:ok:`;
const REJECT = `${ADMIN_CALLBACK_PREFIX}dep:no:`;
const REASON = `${ADMIN_CALLBACK_PREFIX}dep:why:`;

/** What the holder is told on a reject from the bot (the dashboard takes any reason). */
const REJECT_REASONS = [
  "no transfer of this amount has arrived",
  "the transfer's amount does not match",
  "the proof does not show a transfer to us",
] as const;

/** Approve and Reject for a deposit request's message. */
export function depositButtons(depositId: number) {
  return Markup.inlineKeyboard([
    Markup.button.callback("✅ Approve deposit", APPROVE + depositId),
    Markup.button.callback("Reject…", REJECT + depositId),
  ]);
}

function decider(ctx: BotContext) {
  return { adminUserId: adminOf(ctx).adminId, actor: senderOf(ctx).actor };
}

function resolvedText(deposit: DepositRequest): string {
  return `Deposit ${deposit.reference} was already ${deposit.status}${deposit.resolvedBy ? ` (by ${deposit.resolvedBy})` : ""}.`;
}

/** Takes the buttons off the pressed message (its text or caption stays); best effort. */
async function dropButtons(ctx: BotContext): Promise<void> {
  try {
    await ctx.editMessageReplyMarkup(undefined);
  } catch (error) {
    logger("bot").warn(`could not take the buttons off a deposit message: ${messageOf(error)}`);
  }
}

adminDeposits.action(new RegExp(`^${ADMIN_CALLBACK_PREFIX}dep:ok:(\\d{1,10})$`), async (ctx) => {
  const result = await approveDeposit(Number(ctx.match[1]), decider(ctx));
  await answerApproval(ctx, result);
});

async function answerApproval(ctx: BotContext, result: ApproveDepositResult): Promise<void> {
  switch (result.status) {
    case "approved": {
      const { deposit } = result;
      await ctx.answerCbQuery("Approved and credited");
      await dropButtons(ctx);
      await replyHtml(
        ctx,
        `✅ Deposit ${deposit.reference} approved: <b>${formatUsd(deposit.amountCents)}</b> credited to account #${deposit.accountId}. New balance: ${formatUsd(result.balanceAfterCents)} (ledger entry #${result.ledgerEntryId}).`,
      );
      return;
    }
    case "first_approval":
      await ctx.answerCbQuery(
        `First approval recorded: above ${formatUsd(result.thresholdCents)} a second admin must approve.`,
        {
          show_alert: true,
        },
      );
      return;
    case "own_first_approval":
      await ctx.answerCbQuery("You gave the first approval: a second admin must approve.", { show_alert: true });
      return;
    case "already_resolved":
      await ctx.answerCbQuery(resolvedText(result.deposit));
      await dropButtons(ctx);
      return;
    case "expired":
      await ctx.answerCbQuery(`Deposit ${result.deposit.reference} expired: nothing was credited.`, {
        show_alert: true,
      });
      await dropButtons(ctx);
      return;
    case "not_found":
      await ctx.answerCbQuery("This deposit request does not exist.");
      return;
  }
}

adminDeposits.action(new RegExp(`^${ADMIN_CALLBACK_PREFIX}dep:no:(\\d{1,10})$`), async (ctx) => {
  const id = ctx.match[1]!;
  await ctx.answerCbQuery("Why? The holder is told.");
  await ctx.editMessageReplyMarkup(
    Markup.inlineKeyboard([
      ...REJECT_REASONS.map((reason, index) => [
        Markup.button.callback(`Reject: ${reason}`, `${REASON}${id}:${index}`),
      ]),
      [Markup.button.callback("✅ Approve deposit", APPROVE + id)],
    ]).reply_markup,
  );
});

adminDeposits.action(new RegExp(`^${ADMIN_CALLBACK_PREFIX}dep:why:(\\d{1,10}):(\\d)$`), async (ctx) => {
  const reason = REJECT_REASONS[Number(ctx.match[2])];
  if (!reason) return void (await ctx.answerCbQuery("This button no longer works."));
  const result = await rejectDeposit(Number(ctx.match[1]), decider(ctx), reason);
  if (result.status === "not_found") return void (await ctx.answerCbQuery("This deposit request does not exist."));
  if (result.status === "already_resolved") {
    await ctx.answerCbQuery(resolvedText(result.deposit));
    return void (await dropButtons(ctx));
  }
  await ctx.answerCbQuery("Rejected");
  await dropButtons(ctx);
  await replyHtml(
    ctx,
    `❌ Deposit ${result.deposit.reference} (${formatUsd(result.deposit.amountCents)}) rejected: ${reason}. The holder is told.`,
  );
});
