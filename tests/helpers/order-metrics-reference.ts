// The dashboard overview's figures computed straight from the orders table, independently of the
// counts lib/dashboard/sql/read-order-metrics.ts reads: the query the overview once ran (buckets from
// generate_series, every order joined to its bucket, percentile_cont over the rows), with fulfilment
// times rounded to 0.1 s before their percentiles are taken; and its margins table, as the query
// that summed the window's completed live orders computed it.
import { expect } from "vitest";
import {
  readOrderMetrics,
  type MetricsRange,
  type OrderMetricsFigures,
  type OrderMetricsRow,
} from "@/lib/dashboard/sql/read-order-metrics";
import { readMargins, type Margins } from "@/lib/dashboard/sql/read-margins";
import { sql } from "./db";

const RANGES = { "24h": ["hour", 24, "1 hour"], "7d": ["day", 7, "1 day"] } as const;

/** The overview's figures of live orders as its former query computed them (times to 0.1 s), straight from the orders table. */
async function reference(range: MetricsRange, now: Date) {
  const [unit, count, step] = RANGES[range];
  return sql<Omit<OrderMetricsRow, "revenue_cents"> & { revenue_cents: string }>(
    `WITH bounds AS (
       SELECT date_trunc($1, $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS last_start
     ), buckets AS (
       SELECT generate_series(last_start - ($3::int - 1) * $4::interval, last_start, $4::interval) AS start FROM bounds
     ), scoped AS (
       SELECT date_trunc($1, o.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket,
              o.status, o.order_created, o.amount_cents,
              CASE WHEN o.status = 'completed' AND o.finished_at IS NOT NULL
                   THEN (round(extract(epoch FROM o.finished_at - o.created_at) * 10) / 10)::float8 END AS seconds
         FROM orders o, bounds
        WHERE o.livemode AND o.created_at >= bounds.last_start - ($3::int - 1) * $4::interval
          AND o.created_at < bounds.last_start + $4::interval
     )
     SELECT b.start,
            count(s.status)::int AS total,
            count(*) FILTER (WHERE s.status = 'completed')::int AS completed,
            count(*) FILTER (WHERE s.status = 'cancelled' AND s.order_created)::int AS cancelled,
            count(*) FILTER (WHERE s.status = 'cancelled' AND NOT s.order_created)::int AS refused,
            count(*) FILTER (WHERE s.status = 'processing')::int AS processing,
            count(*) FILTER (WHERE s.status = 'pending')::int AS pending,
            COALESCE(sum(s.amount_cents) FILTER (WHERE s.status = 'completed'), 0)::bigint AS revenue_cents,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY s.seconds) AS p50,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY s.seconds) AS p95
       FROM buckets b LEFT JOIN scoped s ON s.bucket = b.start
      GROUP BY GROUPING SETS ((b.start), ())
      ORDER BY b.start NULLS LAST`,
    [unit, now, count, step],
  );
}

export async function expectMatchesReference(range: MetricsRange, now: Date): Promise<number> {
  const [metrics, rows] = await Promise.all([readOrderMetrics(range, now), reference(range, now)]);
  const buckets = rows.filter((row) => row.start !== null);
  const totals = rows.find((row) => row.start === null)!;
  expect(metrics.buckets.map((b) => b.start.toISOString())).toEqual(buckets.map((row) => row.start!.toISOString()));
  const compare = (actual: OrderMetricsFigures, row: (typeof rows)[number], label: string) => {
    const finished = row.completed + row.cancelled;
    const { start: _start, revenue_cents, p50: _p50, p95: _p95, ...counts } = row;
    expect({ ...actual, p50Seconds: undefined, p95Seconds: undefined }, label).toEqual({
      ...counts,
      revenueCents: Number(revenue_cents),
      successRate: finished === 0 ? null : row.completed / finished,
      p50Seconds: undefined,
      p95Seconds: undefined,
    });
    for (const [value, expected] of [
      [actual.p50Seconds, row.p50],
      [actual.p95Seconds, row.p95],
    ] as const) {
      if (expected === null) expect(value, label).toBeNull();
      else expect(value, label).toBeCloseTo(expected, 9);
    }
  };
  metrics.buckets.forEach(({ start, end, ...figures }, i) => {
    compare(figures, buckets[i]!, `${range} ${start.toISOString()}`);
    expect(end.getTime() - start.getTime()).toBe(range === "24h" ? 3_600_000 : 86_400_000);
  });
  compare(metrics.totals, totals, `${range} totals`);
  return metrics.totals.total;
}

/** The overview's margins over [from, to) as its former query computed them, straight from the orders table. */
async function marginsReference(from: Date, to: Date): Promise<Margins> {
  const rows = await sql<{
    line: string | null;
    supplier: string | null;
    by_line: number;
    by_supplier: number;
    orders: number;
    revenue: number;
    cost: number;
  }>(
    `SELECT line_slug AS line, COALESCE(supplier, 'none') AS supplier,
            GROUPING(line_slug)::int AS by_line, GROUPING(COALESCE(supplier, 'none'))::int AS by_supplier,
            count(*)::int AS orders, COALESCE(sum(amount_cents), 0)::bigint AS revenue,
            COALESCE(sum(cost_cents), 0)::bigint AS cost
       FROM orders
      WHERE livemode AND status = 'completed' AND created_at >= $1 AND created_at < $2
      GROUP BY GROUPING SETS ((line_slug), (COALESCE(supplier, 'none')), ())
      ORDER BY 1, 2`,
    [from, to],
  );
  const figures = (row?: (typeof rows)[number]) => {
    const [revenueCents, costCents] = [Number(row?.revenue ?? 0), Number(row?.cost ?? 0)];
    return {
      orders: row?.orders ?? 0,
      revenueCents,
      costCents,
      marginCents: revenueCents - costCents,
      marginRate: revenueCents === 0 ? null : (revenueCents - costCents) / revenueCents,
    };
  };
  return {
    total: figures(rows.find((row) => row.by_line === 1 && row.by_supplier === 1)),
    byLine: rows.filter((row) => row.by_line === 0).map((row) => ({ line: row.line!, ...figures(row) })),
    bySupplier: rows
      .filter((row) => row.by_supplier === 0)
      .map((row) => ({ supplier: row.supplier!, ...figures(row) })),
  };
}

/** The overview's margins over [from, to) equal the direct computation; returns how many orders they cover. */
export async function expectMarginsMatchReference(from: Date, to: Date, label: string): Promise<number> {
  const [margins, expected] = await Promise.all([readMargins(from, to), marginsReference(from, to)]);
  expect(margins, `${label}: margins over ${from.toISOString()} .. ${to.toISOString()}`).toEqual(expected);
  return margins.total.orders;
}
