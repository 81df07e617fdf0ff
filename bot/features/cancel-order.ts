// /cancel <order>: the holder takes back an order no supplier has been asked about yet, as
// POST /orders/{orderId}/cancel does (the same lib function, so the same single winner against the
// worker and the same single refund).
import { Composer } from "telegraf";
import { cancelHolderOrder } from "@/lib/orders/cancel-own-order";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatUsd, parseArgs, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";

export const cancelOrder = new Composer<BotContext>();

cancelOrder.command("cancel", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const [reference] = parseArgs(ctx.payload).words;
  if (!reference) {
    await ctx.reply("Usage: /cancel <order> (its public id or your trxid, as /orders lists them)");
    return;
  }
  const result = await cancelHolderOrder({
    holderId: sender.account!.id,
    reference,
    actor: sender.actor,
  });
  if (!result) {
    await replyHtml(ctx, `No order of yours matches <code>${escapeHtml(reference)}</code>.`);
    return;
  }
  const id = `<code>${escapeHtml(result.order.publicId)}</code>`;
  switch (result.status) {
    case "cancelled":
      await replyHtml(
        ctx,
        `${id} cancelled${result.order.refunded ? `; ${formatUsd(result.order.amountCents)} refunded to your wallet` : ""}.`,
      );
      return;
    case "with_supplier":
      await replyHtml(ctx, `${id} is already with a supplier and cannot be cancelled: it finishes by itself.`);
      return;
    case "finished":
      await replyHtml(ctx, `${id} is already ${escapeHtml(result.order.status)}: nothing was changed.`);
      return;
  }
});
