// /balance and /orders for the account holder.
import { Composer } from "telegraf";
import { listRecentOrders } from "@/lib/accounts/list-recent-orders";
import { env } from "@/lib/config/env";
import { readTestBalance } from "@/lib/wallet/test-wallet";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatTime, formatUsd, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";

export const wallet = new Composer<BotContext>();

const RECENT_ORDERS = 10;

wallet.command("balance", requireAccount, async (ctx) => {
  // The account was read at the start of this update, so the balance is current.
  const account = senderOf(ctx).account!;
  const lines = [`Balance: <b>${formatUsd(account.balanceCents)}</b>`];
  if (env().testMode)
    lines.push(`Test balance: ${formatUsd(await readTestBalance(account.id))} (play money, /testcredit)`);
  await replyHtml(ctx, lines.join("\n"));
});

wallet.command("orders", requireAccount, async (ctx) => {
  const account = senderOf(ctx).account!;
  const orders = await listRecentOrders(account.id, RECENT_ORDERS);
  if (orders.length === 0) {
    await ctx.reply("You have no orders yet.");
    return;
  }
  const lines = [`<b>Your last ${orders.length} order${orders.length === 1 ? "" : "s"}</b>`, ""];
  for (const order of orders) {
    const quantity = order.quantity > 1 ? ` ×${order.quantity}` : "";
    let status = order.status;
    if (order.status === "cancelled" && order.error) status += ` (${order.error}${order.refunded ? ", refunded" : ""})`;
    lines.push(
      `<code>${escapeHtml(order.publicId)}</code> · ${escapeHtml(order.lineSlug)} · ${escapeHtml(order.packName)}${quantity}`,
    );
    lines.push(`  ${formatUsd(order.amountCents)} · <b>${escapeHtml(status)}</b> · ${formatTime(order.createdAt)}`);
  }
  await replyHtml(ctx, lines.join("\n"));
});
