// The dashboard overview's figures computed straight from the orders table, independently of the
// counts lib/dashboard/sql/read-order-metrics.ts reads: the query the overview once ran (buckets from
// generate_series, every order joined to its bucket, percentile_cont over the rows), with fulfilment
// times rounded to 0.1 s before their percentiles are taken.
import { expect } from "vitest";
import {
  readOrderMetrics,
  type MetricsRange,
  type OrderMetricsFigures,
  type OrderMetricsRow,
} from "@/lib/dashboard/sql/read-order-metrics";
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
