// /deposit, /deposits and proofs: the holder asks to fund the wallet, gets the owner's payment
// instructions with a unique amount and a reference, and may send proof of the transfer (a photo, a
// document, or /proof <text>). The linked admins who may credit are told, with Approve and Reject
// (bot/features/admin-deposits.ts); the money moves only on an approval.
import { Composer } from "telegraf";
import type { Message } from "telegraf/types";
import { parseUsd } from "@/lib/money/parse-usd";
import { openDepositRequest, MAX_DEPOSIT_CENTS, MAX_OPEN_DEPOSITS } from "@/lib/deposits/open-deposit-request";
import { attachDepositProof, type DepositProof } from "@/lib/deposits/attach-deposit-proof";
import { listHolderDeposits } from "@/lib/deposits/list-deposit-requests";
import { MAX_PROOF_BYTES, MAX_PROOF_TEXT_LENGTH, type DepositRequest } from "@/lib/deposits/deposit-request";
import { listTelegramAdmins } from "@/lib/admin-users/list-telegram-admins";
import { ADMIN_BUTTON_ROLE, usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatTime, formatUsd, parseArgs, replyHtml } from "../format";
import { requireAccount } from "../middleware/require-account";
import { depositButtons } from "./admin-deposits";
import { logger, messageOf } from "@/lib/observability/logger";

const log = logger("bot");

export const deposits = new Composer<BotContext>();

deposits.command("deposit", requireAccount, async (ctx) => {
  const sender = senderOf(ctx);
  const [amountText] = parseArgs(ctx.payload).words;
  const amount = amountText ? parseUsd(amountText, MAX_DEPOSIT_CENTS) : undefined;
  if (!amount?.ok) {
    const why = amount ? `${escapeHtml(amount.error)}.\n` : "";
    return void (await replyHtml(ctx, `${why}Usage: ${escapeHtml(usageOf("deposit"))}, e.g. /deposit 50`));
  }
  const result = await openDepositRequest({
    accountId: sender.account!.id,
    requestedCents: amount.cents,
    actor: sender.actor,
  });
  switch (result.status) {
    case "not_set_up":
      return void (await ctx.reply("Deposits are not set up on this service yet: please ask the admins."));
    case "too_many_open":
      return void (await ctx.reply(
        `You have ${result.open} open deposit requests (at most ${MAX_OPEN_DEPOSITS}): pay or wait for one of them first. /deposits lists them.`,
      ));
    case "no_free_amount":
      return void (await ctx.reply(
        "Too many deposits of that amount are open right now: please ask for a slightly different amount.",
      ));
  }
  const { deposit, methods } = result;
  const lines = [
    `💳 <b>Deposit request ${deposit.reference}</b>`,
    `Transfer exactly <b>${formatUsd(deposit.amountCents)}</b> (the cents above ${formatUsd(deposit.requestedCents)} tell us the transfer is yours) by ${formatTime(deposit.expiresAt)}, and write <code>${deposit.reference}</code> in its description.`,
  ];
  for (const method of methods) lines.push("", `<b>${escapeHtml(method.name)}</b>`, escapeHtml(method.instructions));
  lines.push(
    "",
    "Then send the proof here: a photo or a document of the transfer, or /proof and its text. Your wallet is credited once an admin sees the transfer; /deposits shows your requests.",
  );
  await replyHtml(ctx, lines.join("\n"));
  await tellAdmins(ctx, deposit, [
    `💳 <b>Deposit request ${deposit.reference}</b>: ${formatUsd(deposit.amountCents)} to account #${deposit.accountId}${sender.username ? ` @${escapeHtml(sender.username)}` : ""}, open until ${formatTime(deposit.expiresAt)}.`,
    "Approve once the transfer is in (or when the proof shows it).",
  ]);
});

deposits.command("deposits", requireAccount, async (ctx) => {
  const list = await listHolderDeposits(senderOf(ctx).account!.id);
  if (list.length === 0)
    return void (await ctx.reply(
      "You have no deposit requests. /deposit and an amount starts one (e.g. /deposit 50).",
    ));
  const lines = ["<b>Your deposit requests</b>", ""];
  for (const deposit of list) {
    const state =
      deposit.status === "pending"
        ? `pending until ${formatTime(deposit.expiresAt)}${deposit.proofKind ? " (proof sent)" : ""}${deposit.firstApprovedBy ? " (first approval given)" : ""}`
        : deposit.status === "rejected"
          ? `rejected: ${escapeHtml(deposit.rejectReason ?? "")}`
          : deposit.status;
    lines.push(
      `<code>${deposit.reference}</code> · ${formatUsd(deposit.amountCents)} · <b>${state}</b> · ${formatTime(deposit.createdAt)}`,
    );
  }
  await replyHtml(ctx, lines.join("\n"));
});

deposits.command("proof", requireAccount, async (ctx) => {
  const text = ctx.payload.trim();
  if (!text) return void (await replyHtml(ctx, `Usage: ${escapeHtml(usageOf("proof"))}`));
  if (text.length > MAX_PROOF_TEXT_LENGTH)
    return void (await ctx.reply(`The proof is too long (at most ${MAX_PROOF_TEXT_LENGTH} characters).`));
  await takeProof(ctx, { kind: "text", text });
});

deposits.on("photo", requireAccount, async (ctx) => {
  // Telegram sends every size: the largest that fits.
  const sizes = ctx.message.photo.filter((size) => (size.file_size ?? 0) <= MAX_PROOF_BYTES);
  const photo = sizes.at(-1);
  if (!photo) return void (await tooLarge(ctx));
  const bytes = await download(ctx, photo.file_id);
  if (!bytes) return;
  await takeProof(
    ctx,
    { kind: "photo", bytes, fileName: "photo.jpg", mime: "image/jpeg", caption: ctx.message.caption },
    ctx.message,
  );
});

deposits.on("document", requireAccount, async (ctx) => {
  const { document } = ctx.message;
  if ((document.file_size ?? 0) > MAX_PROOF_BYTES) return void (await tooLarge(ctx));
  const bytes = await download(ctx, document.file_id);
  if (!bytes) return;
  await takeProof(
    ctx,
    {
      kind: "document",
      bytes,
      fileName: document.file_name ?? "document",
      mime: document.mime_type ?? "application/octet-stream",
      caption: ctx.message.caption,
    },
    ctx.message,
  );
});

async function tooLarge(ctx: BotContext): Promise<void> {
  await ctx.reply(
    `The file is too large for a proof (at most ${MAX_PROOF_BYTES / 1_000_000} MB): send a smaller one, or /proof and the transfer's details.`,
  );
}

/** The file's bytes through the Bot API's getFile and its file download; undefined (and said) when it fails. */
async function download(ctx: BotContext, fileId: string): Promise<Uint8Array | undefined> {
  try {
    const link = await ctx.telegram.getFileLink(fileId);
    const response = await fetch(link, { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`file download answered ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > MAX_PROOF_BYTES) return void (await tooLarge(ctx));
    return bytes;
  } catch (error) {
    log.warn(`could not download a proof from telegram:${ctx.from?.id}: ${messageOf(error)}`);
    await ctx.reply("Sorry, the file could not be fetched from Telegram: please send it again.");
    return undefined;
  }
}

async function takeProof(
  ctx: BotContext,
  proof: DepositProof,
  message?: Message.PhotoMessage | Message.DocumentMessage,
) {
  const sender = senderOf(ctx);
  const result = await attachDepositProof({ accountId: sender.account!.id, proof, actor: sender.actor });
  if (result.status === "no_open_request")
    return void (await ctx.reply(
      "You have no open deposit request to attach this to: send /deposit and the amount first (e.g. /deposit 50).",
    ));
  if (result.status === "too_large") return void (await tooLarge(ctx));
  const { deposit } = result;
  await replyHtml(
    ctx,
    `📎 Proof received for <code>${deposit.reference}</code> (${formatUsd(deposit.amountCents)}). An admin will check it.`,
  );
  const about = `📎 <b>Proof for ${deposit.reference}</b>: ${formatUsd(deposit.amountCents)} to account #${deposit.accountId}.`;
  const text = proof.kind === "text" ? proof.text : proof.caption;
  await tellAdmins(ctx, deposit, [about, ...(text ? [`“${escapeHtml(text)}”`] : [])], message);
}

/**
 * Tells every linked admin who may credit, with Approve and Reject; a photo or document proof is
 * sent as itself (by its Telegram file id). Best effort: an admin who cannot be told is logged, and
 * the dashboard's queue shows the request either way.
 */
async function tellAdmins(
  ctx: BotContext,
  deposit: DepositRequest,
  lines: string[],
  message?: Message.PhotoMessage | Message.DocumentMessage,
): Promise<void> {
  const extra = { parse_mode: "HTML" as const, ...depositButtons(deposit.id) };
  const text = lines.join("\n");
  for (const admin of await listTelegramAdmins(ADMIN_BUTTON_ROLE)) {
    try {
      if (message && "photo" in message)
        await ctx.telegram.sendPhoto(admin.telegramId, message.photo.at(-1)!.file_id, { caption: text, ...extra });
      else if (message && "document" in message)
        await ctx.telegram.sendDocument(admin.telegramId, message.document.file_id, { caption: text, ...extra });
      else await ctx.telegram.sendMessage(admin.telegramId, text, extra);
    } catch (error) {
      log.warn(`could not tell telegram:${admin.telegramId} about deposit #${deposit.id}: ${messageOf(error)}`);
    }
  }
}
