// Raises or lowers the price of every pack of a line (enabled or not) by a percentage, in one
// transaction with one audit entry naming each old and new price. Each new price is
// old × (100 + percent) / 100 rounded to the nearest cent, halves up, in integer arithmetic. A
// change that would take any pack to $0.00 or above the price limit changes nothing. Prices apply to
// new orders only: an order keeps the unit price it was placed at.
import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { numberFromDb } from "../db/number-from-db";
import { formatUsd } from "../money/parse-usd";
import { MAX_PRODUCT_PRICE_CENTS } from "./set-product-price";

/** -90% to +1000%: anything beyond is a typo, not a price policy. */
const MIN_PERCENT_HUNDREDTHS = -9_000;
const MAX_PERCENT_HUNDREDTHS = 100_000;

export type ChangeLinePricesResult =
  | {
      status: "updated";
      slug: string;
      changes: { catalogId: string; fromCents: number; toCents: number }[];
      auditId: number;
    }
  | { status: "refused"; message: string };

/** "5", "-12.5", "+2.25" as hundredths of a percent (500, -1250, 225); undefined when not one. */
export function parsePercent(text: string): number | undefined {
  const match = /^([+-]?)(\d{1,4})(?:\.(\d{1,2}))?$/.exec(text.trim().replace(/%$/, ""));
  if (!match) return undefined;
  const [, sign, whole = "", fraction = ""] = match;
  const hundredths = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return sign === "-" ? -hundredths : hundredths;
}

/** The new price in cents: the nearest cent, halves rounded up (integer arithmetic only). */
export function applyPercent(cents: number, hundredths: number): number {
  return Math.floor((cents * (10_000 + hundredths) + 5_000) / 10_000);
}

class PriceMoved extends Error {
  readonly catalogId: string;
  constructor(catalogId: string) {
    super(`the price of ${catalogId} changed during the update`);
    this.catalogId = catalogId;
  }
}

export async function changeLinePrices(input: {
  lineId: number;
  percent: string;
  actor: string;
}): Promise<ChangeLinePricesResult> {
  const hundredths = parsePercent(input.percent);
  if (hundredths === undefined)
    return { status: "refused", message: "Percent: a number with at most two decimals, e.g. 10 or -12.5." };
  if (hundredths === 0) return { status: "refused", message: "Percent: 0 changes nothing." };
  if (hundredths < MIN_PERCENT_HUNDREDTHS || hundredths > MAX_PERCENT_HUNDREDTHS)
    return { status: "refused", message: "Percent: from -90 to +1000." };
  const percent = hundredths / 100;
  try {
    return await changePricesInTransaction(input.lineId, hundredths, percent, input.actor);
  } catch (error) {
    if (error instanceof PriceMoved)
      return {
        status: "refused",
        message: `Nothing changed: another admin changed ${error.catalogId} just now. Reload and try again.`,
      };
    throw error;
  }
}

async function changePricesInTransaction(
  lineId: number,
  hundredths: number,
  percent: number,
  actor: string,
): Promise<ChangeLinePricesResult> {
  return getPrisma().$transaction(async (tx) => {
    const line = await tx.gameLine.findUnique({
      where: { id: lineId },
      select: {
        slug: true,
        products: {
          select: { id: true, catalogId: true, priceCents: true },
          orderBy: [{ sortOrder: "asc" }, { id: "asc" }],
        },
      },
    });
    if (!line) return { status: "refused" as const, message: "No such line." };
    if (line.products.length === 0) return { status: "refused" as const, message: `${line.slug} has no packs.` };
    const changes = line.products.map((product) => {
      const fromCents = numberFromDb(product.priceCents);
      return { id: product.id, catalogId: product.catalogId, fromCents, toCents: applyPercent(fromCents, hundredths) };
    });
    const outOfRange = changes.filter((change) => change.toCents < 1 || change.toCents > MAX_PRODUCT_PRICE_CENTS);
    if (outOfRange.length > 0)
      return {
        status: "refused" as const,
        message: `Nothing changed: ${outOfRange
          .map((change) => `${change.catalogId} would cost ${formatUsd(change.toCents)}`)
          .join(", ")} (a price is from $0.01 to ${formatUsd(MAX_PRODUCT_PRICE_CENTS)}).`,
      };
    for (const change of changes) {
      if (change.toCents === change.fromCents) continue;
      // Compare-and-set on the price read: a price another admin changed meanwhile rolls it all back.
      const { count } = await tx.product.updateMany({
        where: { id: change.id, priceCents: change.fromCents },
        data: { priceCents: change.toCents },
      });
      if (count !== 1) throw new PriceMoved(change.catalogId);
    }
    const listed = changes.map(({ catalogId, fromCents, toCents }) => ({ catalogId, fromCents, toCents }));
    const auditId = await recordAuditEntry(
      {
        actor,
        action: "line.prices",
        targetType: "game_line",
        targetId: lineId,
        details: { slug: line.slug, percent, rounding: "nearest cent, halves up", changes: listed },
      },
      tx,
    );
    return { status: "updated" as const, slug: line.slug, changes: listed, auditId };
  });
}
