// /webhook add|list|remove|test|secret and /lowbalance: the holder's webhook endpoints and the
// balance.low threshold. Secrets are shown once, when created or rotated.
import { Composer } from "telegraf";
import { addWebhookEndpoint } from "@/lib/webhooks/add-webhook-endpoint";
import { listWebhookEndpoints } from "@/lib/webhooks/list-webhook-endpoints";
import { removeWebhookEndpoint } from "@/lib/webhooks/remove-webhook-endpoint";
import { rotateWebhookSecret } from "@/lib/webhooks/rotate-webhook-secret";
import { sendTestEvent, TEST_EVENTS_PER_HOUR } from "@/lib/webhooks/send-test-event";
import { readLowBalanceThreshold, setLowBalanceThreshold } from "@/lib/webhooks/set-low-balance-threshold";
import { MAX_ENDPOINTS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/event-types";
import { parseUsd } from "@/lib/money/parse-usd";
import { env } from "@/lib/config/env";
import { findEndpointAccount } from "@/lib/webhooks/find-endpoint-account";
import { openHolderTestAccount } from "@/lib/wallet/test-wallet";
import { TEST_MODE_OFF_REPLY } from "./test-mode";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatTime, formatUsd, parseArgs, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";

export const webhooks = new Composer<BotContext>();

const SUBSCRIBABLE = WEBHOOK_EVENT_TYPES.filter((type) => type !== "endpoint.test");

const USAGE = [
  "Usage:",
  "/webhook add &lt;https-url&gt; [event types, comma-separated; default all] [test]",
  "  (test: the endpoint receives test mode's events only, and a live one never does)",
  "/webhook list",
  "/webhook remove &lt;id&gt;",
  "/webhook test &lt;id&gt;",
  "/webhook secret &lt;id&gt; (rotates it; the old one keeps signing for a day)",
  `Event types: ${SUBSCRIBABLE.join(", ")}`,
].join("\n");

function endpointId(word: string | undefined): number | undefined {
  const id = /^#?(\d{1,9})$/.exec(word ?? "")?.[1];
  return id ? Number(id) : undefined;
}

webhooks.command("webhook", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const accountId = sender.account!.id;
  const { words } = parseArgs(ctx.payload);
  const sub = words[0]?.toLowerCase();

  if (sub === "add" && words[1]) {
    const test = words.length > 2 && words.at(-1)!.toLowerCase() === "test";
    if (test && !env().testMode) return void (await ctx.reply(TEST_MODE_OFF_REPLY));
    const eventTypes = words
      .slice(2, test ? -1 : undefined)
      .join(",")
      .split(",")
      .map((type) => type.trim())
      .filter(Boolean);
    const owner = test ? await openHolderTestAccount(accountId) : accountId;
    const result = await addWebhookEndpoint({ accountId: owner, url: words[1], eventTypes, actor: sender.actor });
    switch (result.status) {
      case "refused_url":
        await replyHtml(ctx, `That URL cannot receive webhooks: ${escapeHtml(result.reason)}.`);
        return;
      case "unknown_event_types":
        await replyHtml(
          ctx,
          `Unknown event type: ${result.unknown.map((type) => `<code>${escapeHtml(type)}</code>`).join(", ")}\nEvent types: ${SUBSCRIBABLE.join(", ")}`,
        );
        return;
      case "limit_reached":
        await replyHtml(ctx, `You already have ${result.limit} endpoints: remove one first (/webhook list).`);
        return;
    }
    await replyHtml(
      ctx,
      [
        `${test ? "Test endpoint" : "Endpoint"} <b>#${result.endpointId}</b> added: <code>${escapeHtml(result.url)}</code>`,
        `Events: ${result.eventTypes.length ? result.eventTypes.join(", ") : "all"}`,
        "",
        `Signing secret (shown only now; keep it on your server):`,
        `<code>${escapeHtml(result.secret)}</code>`,
        "",
        `Verify each delivery with the standardwebhooks package. /webhook test ${result.endpointId} sends a test event.`,
      ].join("\n"),
    );
    return;
  }

  if (sub === "list" && words.length === 1) {
    const endpoints = await listWebhookEndpoints(accountId);
    if (endpoints.length === 0) {
      await replyHtml(ctx, "You have no webhook endpoints. /webhook add &lt;https-url&gt; adds one.");
      return;
    }
    const lines = [
      `<b>Webhook endpoints</b> (${endpoints.filter((e) => !e.disabledAt).length} of ${MAX_ENDPOINTS_PER_ACCOUNT} enabled)`,
    ];
    for (const e of endpoints) {
      lines.push("");
      lines.push(`<b>#${e.id}</b>${e.livemode ? "" : " (test)"} <code>${escapeHtml(e.url)}</code>`);
      lines.push(`  events: ${e.eventTypes.length ? escapeHtml(e.eventTypes.join(", ")) : "all"}`);
      if (e.disabledAt)
        lines.push(`  <b>disabled</b> ${formatTime(e.disabledAt)}: ${escapeHtml(e.disabledReason ?? "")}`);
      else if (e.failingSince) {
        const paused = e.pausedUntil && e.pausedUntil > new Date() ? `; paused until ${formatTime(e.pausedUntil)}` : "";
        lines.push(`  failing since ${formatTime(e.failingSince)}${paused}`);
      }
      const last = e.lastAttemptAt
        ? `${e.lastHttpStatus ?? escapeHtml(e.lastError ?? "no answer")} at ${formatTime(e.lastAttemptAt)}`
        : "none yet";
      lines.push(`  last attempt: ${last}; waiting: ${e.pendingDeliveries}`);
    }
    await replyHtml(ctx, lines.join("\n"));
    return;
  }

  const id = endpointId(words[1]);
  if ((sub === "remove" || sub === "test" || sub === "secret") && words.length === 2 && id !== undefined) {
    // A test endpoint belongs to the holder's test account; an id that is neither's is "not found" below.
    const accountId = (await findEndpointAccount(sender.account!.id, id)) ?? sender.account!.id;
    if (sub === "remove") {
      const removed = await removeWebhookEndpoint({ accountId, endpointId: id, actor: sender.actor });
      await ctx.reply(
        removed === "removed" ? `Endpoint #${id} removed.` : `You have no endpoint #${id}. /webhook list shows yours.`,
      );
      return;
    }
    if (sub === "test") {
      const result = await sendTestEvent({ accountId, endpointId: id });
      if (result.status === "not_found") await ctx.reply(`You have no endpoint #${id}. /webhook list shows yours.`);
      else if (result.status === "disabled")
        await replyHtml(
          ctx,
          `Endpoint #${id} is disabled (${escapeHtml(result.reason ?? "unknown reason")}): remove it and add it again.`,
        );
      else if (result.status === "rate_limited")
        await ctx.reply(
          `At most ${TEST_EVENTS_PER_HOUR} test events an hour: try again in ${Math.ceil(result.retryAfterSeconds / 60)} min.`,
        );
      else
        await replyHtml(
          ctx,
          `Test event <code>${escapeHtml(result.id)}</code> (sequence ${result.sequence}) queued for endpoint #${id}.`,
        );
      return;
    }
    const rotated = await rotateWebhookSecret({ accountId, endpointId: id, actor: sender.actor });
    if (rotated.status === "not_found") {
      await ctx.reply(`You have no endpoint #${id}. /webhook list shows yours.`);
      return;
    }
    await replyHtml(
      ctx,
      [
        `New signing secret for endpoint #${id} (shown only now):`,
        `<code>${escapeHtml(rotated.secret)}</code>`,
        `Until ${formatTime(rotated.previousValidUntil)} deliveries carry signatures with both the new and the old secret.`,
      ].join("\n"),
    );
    return;
  }

  await replyHtml(ctx, USAGE);
});

webhooks.command("lowbalance", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const { words } = parseArgs(ctx.payload);
  if (words.length === 1 && words[0]?.toLowerCase() === "off") {
    await setLowBalanceThreshold({ accountId: sender.account!.id, thresholdCents: null, actor: sender.actor });
    await ctx.reply("Low-balance alerts are off.");
    return;
  }
  const amount = words.length === 1 ? parseUsd(words[0] ?? "") : undefined;
  if (!amount?.ok) {
    const current = await readLowBalanceThreshold(sender.account!.id);
    await replyHtml(
      ctx,
      [
        amount ? escapeHtml(amount.error) : "Usage: /lowbalance &lt;usd&gt; or /lowbalance off",
        `Now: ${current === null ? "off" : formatUsd(current)}`,
      ].join("\n"),
    );
    return;
  }
  await setLowBalanceThreshold({ accountId: sender.account!.id, thresholdCents: amount.cents, actor: sender.actor });
  await replyHtml(
    ctx,
    `A balance.low webhook event is sent when your balance falls below <b>${formatUsd(amount.cents)}</b>.`,
  );
});
