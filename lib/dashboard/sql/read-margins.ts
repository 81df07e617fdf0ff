// Revenue, cost and gross margin of live completed orders over a window, in total, per line and per
// supplier (the overview's margin table). An order counts in the window it was placed in, like the
// overview's other figures; cancelled orders earn and cost nothing. The window's whole hours come
// from the margins kept as orders settle (margin_stats and the changes not yet folded into it, see
// prisma/functions/count_order_stats.sql), its partial hours at either end from the orders
// themselves: a few rows per hour, and at most two hours of orders, whatever the number of orders.
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

const HOUR_MS = 3_600_000;

export async function readMargins(from: Date, to: Date): Promise<Margins> {
  // [from, hoursFrom) and [hoursTo, to) from the orders, [hoursFrom, hoursTo) from the kept margins.
  let hoursFrom = new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS);
  let hoursTo = new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS);
  if (hoursFrom >= hoursTo) hoursFrom = hoursTo = to;
  const rows = await getPrisma().$queryRaw<MarginRow[]>`
    WITH counted AS (
      SELECT line_slug, supplier, orders, revenue_cents, cost_cents FROM margin_stats
       WHERE hour >= ${hoursFrom}::timestamptz AND hour < ${hoursTo}::timestamptz
      UNION ALL
      SELECT line_slug, supplier, orders, amount_cents, cost_cents FROM order_stat_changes
       WHERE line_slug IS NOT NULL AND hour >= ${hoursFrom}::timestamptz AND hour < ${hoursTo}::timestamptz
      UNION ALL
      SELECT line_slug, COALESCE(supplier, 'none'), 1, amount_cents, COALESCE(cost_cents, 0) FROM orders
       WHERE livemode AND status = 'completed' AND created_at >= ${from}::timestamptz AND created_at < ${hoursFrom}::timestamptz
      UNION ALL
      SELECT line_slug, COALESCE(supplier, 'none'), 1, amount_cents, COALESCE(cost_cents, 0) FROM orders
       WHERE livemode AND status = 'completed' AND created_at >= ${hoursTo}::timestamptz AND created_at < ${to}::timestamptz
    )
    SELECT line_slug AS line, supplier,
           GROUPING(line_slug)::int AS by_line, GROUPING(supplier)::int AS by_supplier,
           sum(orders)::int AS orders, COALESCE(sum(revenue_cents), 0)::bigint AS revenue_cents,
           COALESCE(sum(cost_cents), 0)::bigint AS cost_cents
      FROM counted
     GROUP BY GROUPING SETS ((line_slug), (supplier), ())
    HAVING sum(orders) <> 0
     ORDER BY 1, 2`;
  return {
    total: figures(rows.find((row) => row.by_line === 1 && row.by_supplier === 1)),
    byLine: rows.filter((row) => row.by_line === 0).map((row) => ({ line: row.line!, ...figures(row) })),
    bySupplier: rows
      .filter((row) => row.by_supplier === 0)
      .map((row) => ({ supplier: row.supplier!, ...figures(row) })),
  };
}
