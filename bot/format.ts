// Message formatting. Every reply is HTML (parse_mode "HTML"); anything a user controls (usernames,
// display names, notes, reasons, echoed arguments) goes through escapeHtml first.
import type { BotContext } from "./context";
import { formatUsd } from "@/lib/money/parse-usd";

export { formatUsd };

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** "2026-11-20 14:05 UTC": one unambiguous zone for every reader. */
export function formatTime(date: Date | null | undefined): string {
  if (!date) return "never";
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Signed amount for ledger lines: "+$10.00" / "-$2.50". */
export function formatSignedUsd(cents: number): string {
  return cents > 0 ? `+${formatUsd(cents)}` : formatUsd(cents);
}

/** Telegram refuses messages over 4096 characters; a little headroom stays for entities. */
const MAX_MESSAGE_LENGTH = 4000;

/**
 * Splits a long HTML message at line breaks into parts Telegram accepts. Every tag the bot writes
 * opens and closes on one line, so each part is valid HTML by itself.
 */
function splitMessage(html: string, max = MAX_MESSAGE_LENGTH): string[] {
  const parts: string[] = [];
  let current = "";
  for (const line of html.split("\n")) {
    // A single over-long line (never produced by the bot's own formats) is cut rather than refused.
    const pieces = line.length > max ? line.match(new RegExp(`[\\s\\S]{1,${max}}`, "g"))! : [line];
    for (const piece of pieces) {
      if (current && current.length + 1 + piece.length > max) {
        parts.push(current);
        current = piece;
      } else {
        current = current ? `${current}\n${piece}` : piece;
      }
    }
  }
  if (current || parts.length === 0) parts.push(current);
  return parts;
}

/** Replies in HTML; a long reply goes out in several messages, buttons on the last one. */
export async function replyHtml(ctx: BotContext, html: string, extra: Parameters<BotContext["reply"]>[1] = {}) {
  const parts = splitMessage(html);
  const options = { parse_mode: "HTML" as const, link_preview_options: { is_disabled: true } };
  for (const part of parts.slice(0, -1)) await ctx.reply(part, options);
  return ctx.reply(parts.at(-1) ?? "", { ...options, ...extra });
}

/** Splits a command's payload into whitespace-separated words; `rest(n)` is the text after the first n words, verbatim. */
export function parseArgs(payload: string): { words: string[]; rest(n: number): string } {
  const text = payload.trim();
  const words = text ? text.split(/\s+/) : [];
  return {
    words,
    rest(n: number) {
      let remaining = text;
      for (let i = 0; i < n && remaining; i++) remaining = remaining.replace(/^\S+\s*/, "");
      return remaining.trim();
    },
  };
}
