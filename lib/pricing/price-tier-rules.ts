// What an admin may type for a price tier: its name, and a pack's rule in it (a fixed price in USD
// or a percent off the list price). The price an account pays is computed by pack_price() in SQL
// only; these parse and describe, they never price.
import { z } from "zod";
import { formatUsd, parseUsd } from "../money/parse-usd";
import { MAX_PRODUCT_PRICE_CENTS } from "../catalog/set-product-price";

/** The word that means "no tier" (list prices) in the bot and the dashboard, so never a tier's name. */
export const NO_TIER = "none";

/** One word, so the bot's `/tier <account> <tier>` can name it; lower case, so names are not confusable. */
export const PriceTierName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "a name is 1-40 letters, digits, dashes and underscores")
  .refine((name) => name !== NO_TIER, `"${NO_TIER}" means no tier, so it cannot be a tier's name`);

/** A pack's rule in a tier: a fixed price, or basis points off the list price (1250 is 12.5 %). */
export type TierRule = { priceCents: number; percentOffBp: null } | { priceCents: null; percentOffBp: number };

export type ParseRuleResult = { ok: true; rule: TierRule } | { ok: false; error: string };

// Up to two decimals, as typed: "12.5" is 1250 basis points, by string arithmetic (no float).
const PERCENT_PATTERN = /^(\d{1,2})(?:\.(\d{1,2}))?$/;

/**
 * The dashboard's rule field: "4.50" (a price in USD) when `kind` is "price", "12.5" (percent off)
 * when it is "percent". A percent is from 0.01 to 99.99; a price from $0.01 to the catalog's maximum.
 */
export function parseTierRule(kind: string, text: string): ParseRuleResult {
  if (kind === "price") {
    const parsed = parseUsd(text, MAX_PRODUCT_PRICE_CENTS);
    return parsed.ok ? { ok: true, rule: { priceCents: parsed.cents, percentOffBp: null } } : parsed;
  }
  if (kind === "percent") {
    const match = PERCENT_PATTERN.exec(text.trim().replace(/%$/, ""));
    const basisPoints = match ? Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")) : 0;
    if (!match || basisPoints < 1 || basisPoints > 9999)
      return { ok: false, error: "Percent off must be from 0.01 to 99.99, with at most two decimals, e.g. 12.5" };
    return { ok: true, rule: { priceCents: null, percentOffBp: basisPoints } };
  }
  return { ok: false, error: 'Choose "price" or "percent"' };
}

/** "$4.50" or "12.5 % off" (null: the list price). */
export function describeTierRule(rule: { priceCents: number | null; percentOffBp: number | null } | null): string {
  if (!rule) return "list price";
  if (rule.priceCents !== null) return formatUsd(rule.priceCents);
  const bp = rule.percentOffBp ?? 0;
  const fraction = bp % 100 === 0 ? "" : `.${String(bp % 100).padStart(2, "0")}`.replace(/0$/, "");
  return `${Math.floor(bp / 100)}${fraction} % off`;
}

/** What a tier change answers the dashboard: done, or refused and why (nothing was written). */
export type PriceTierChange = { status: "saved"; message: string } | { status: "refused"; message: string };

/** Prisma's unique-constraint failure: another tier took the name between our check and our write. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}
