// Revenue, cost and gross margin of live completed orders over a window, in total, per line and per
// supplier (the overview's margin table). An order counts in the window it was placed in, like the
// overview's other figures; cancelled orders earn and cost nothing.
import { getPrisma } from "../../db/prisma";
import { numberFromDb } from "../../db/number-from-db";

interface MarginFigures {
  orders: number;
  revenueCents: number;
  costCents: number;
  marginCents: number;
  /** margin / revenue; null without revenue. */
  marginRate: number | null;
}

export interface Margins {
  total: MarginFigures;
  byLine: (MarginFigures & { line: string })[];
  bySupplier: (MarginFigures & { supplier: string })[];
}

type MarginRow = {
  line: string | null;
  supplier: string | null;
  by_line: number;
  by_supplier: number;
  orders: number;
  revenue_cents: bigint;
  cost_cents: bigint;
};

function figures(row: Pick<MarginRow, "orders" | "revenue_cents" | "cost_cents"> | undefined): MarginFigures {
  const revenueCents = numberFromDb(row?.revenue_cents ?? 0n);
  const costCents = numberFromDb(row?.cost_cents ?? 0n);
  const marginCents = revenueCents - costCents;
  return {
    orders: row?.orders ?? 0,
    revenueCents,
    costCents,
    marginCents,
    marginRate: revenueCents === 0 ? null : marginCents / revenueCents,
  };
}

export async function readMargins(from: Date, to: Date): Promise<Margins> {
  const rows = await getPrisma().$queryRaw<MarginRow[]>`
    SELECT line_slug AS line, COALESCE(supplier, 'none') AS supplier,
           GROUPING(line_slug)::int AS by_line, GROUPING(COALESCE(supplier, 'none'))::int AS by_supplier,
           count(*)::int AS orders, COALESCE(sum(amount_cents), 0)::bigint AS revenue_cents,
           COALESCE(sum(cost_cents), 0)::bigint AS cost_cents
      FROM orders
     WHERE livemode AND status = 'completed' AND created_at >= ${from} AND created_at < ${to}
     GROUP BY GROUPING SETS ((line_slug), (COALESCE(supplier, 'none')), ())
     ORDER BY 1, 2`;
  return {
    total: figures(rows.find((row) => row.by_line === 1 && row.by_supplier === 1)),
    byLine: rows.filter((row) => row.by_line === 0).map((row) => ({ line: row.line!, ...figures(row) })),
    bySupplier: rows
      .filter((row) => row.by_supplier === 0)
      .map((row) => ({ supplier: row.supplier!, ...figures(row) })),
  };
}
