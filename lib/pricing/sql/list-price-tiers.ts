// The dashboard's tiers page: each tier with its accounts and its pack rules, each rule with the
// price it gives, computed by pack_price() (the function GET /products and placements use), so the
// page shows exactly what those accounts are shown and charged.
import { getPrisma } from "../../db/prisma";
import { numberFromDb, nullableNumberFromDb } from "../../db/number-from-db";

interface TierPackPrice {
  catalogId: string;
  packName: string;
  listPriceCents: number;
  /** The rule: exactly one of these is set. */
  priceCents: number | null;
  percentOffBp: number | null;
  /** What the tier's accounts pay for the pack. */
  tierPriceCents: number;
  /** The pack's cheapest live supplier cost (suppliers not paused); null when none carries it. */
  cheapestCostCents: number | null;
}

export interface PriceTierView {
  id: number;
  name: string;
  accountCount: number;
  /** The tier's version, carried by its forms (lib/db/edit-version.ts). */
  updatedAt: Date;
  /** In catalog order. */
  prices: TierPackPrice[];
}

export async function listPriceTiers(): Promise<PriceTierView[]> {
  const prisma = getPrisma();
  const tiers = await prisma.priceTier.findMany({
    orderBy: { name: "asc" },
    select: { id: true, name: true, updatedAt: true, _count: { select: { accounts: true } } },
  });
  const rows = await prisma.$queryRaw<
    {
      tierId: number;
      catalogId: string;
      packName: string;
      listPriceCents: bigint | number;
      priceCents: bigint | number | null;
      percentOffBp: number | null;
      tierPriceCents: bigint | number;
      cheapestCostCents: bigint | number | null;
    }[]
  >`SELECT tp.price_tier_id AS "tierId", p.catalog_id AS "catalogId", p.pack_name AS "packName",
           p.price_cents AS "listPriceCents", tp.price_cents AS "priceCents", tp.percent_off_bp AS "percentOffBp",
           pack_price(p.price_cents, tp.price_cents, tp.percent_off_bp) AS "tierPriceCents",
           (SELECT min(o.cost_cents) FROM supplier_offers o JOIN suppliers s ON s.id = o.supplier_id
             WHERE o.product_id = p.id AND s.paused_at IS NULL) AS "cheapestCostCents"
      FROM price_tier_prices tp
      JOIN products p ON p.id = tp.product_id
      JOIN game_lines l ON l.id = p.line_id
     ORDER BY l.sort_order, l.id, p.sort_order, p.id`;
  return tiers.map((tier) => ({
    id: tier.id,
    name: tier.name,
    accountCount: tier._count.accounts,
    updatedAt: tier.updatedAt,
    prices: rows
      .filter((row) => row.tierId === tier.id)
      .map((row) => ({
        catalogId: row.catalogId,
        packName: row.packName,
        listPriceCents: numberFromDb(row.listPriceCents),
        priceCents: nullableNumberFromDb(row.priceCents),
        percentOffBp: row.percentOffBp,
        tierPriceCents: numberFromDb(row.tierPriceCents),
        cheapestCostCents: nullableNumberFromDb(row.cheapestCostCents),
      })),
  }));
}

/**
 * Every pack, for the page's pack picker: catalog id, name, list price and cheapest live supplier
 * cost (null: none carries it), in catalog order.
 */
export async function listPricedPacks(): Promise<
  { catalogId: string; packName: string; listPriceCents: number; cheapestCostCents: number | null }[]
> {
  const products = await getPrisma().product.findMany({
    orderBy: [{ line: { sortOrder: "asc" } }, { lineId: "asc" }, { sortOrder: "asc" }, { id: "asc" }],
    select: {
      catalogId: true,
      packName: true,
      priceCents: true,
      offers: {
        where: { supplier: { pausedAt: null } },
        select: { costCents: true },
        orderBy: { costCents: "asc" },
        take: 1,
      },
    },
  });
  return products.map((p) => ({
    catalogId: p.catalogId,
    packName: p.packName,
    listPriceCents: numberFromDb(p.priceCents),
    cheapestCostCents: p.offers[0] ? numberFromDb(p.offers[0].costCents) : null,
  }));
}

/** The tiers' names, for the account page's picker. */
export async function listPriceTierNames(): Promise<string[]> {
  const tiers = await getPrisma().priceTier.findMany({ orderBy: { name: "asc" }, select: { name: true } });
  return tiers.map((tier) => tier.name);
}
