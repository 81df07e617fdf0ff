// The overview charts' numbers, per hour (24 h) or per day (7 days, UTC), in one query; each order
// counts in the bucket of its created_at by its status now. Refusals (orderCreated false) are wallet
// shortfalls, so successRate is completed / (completed + cancelled) of placed orders. Read from the
// counts kept as orders change (order_stats and the changes not yet folded into it, see
// prisma/functions/count_order_stats.sql): a few rows per hour whatever the number of orders.
import { getPrisma } from "../../db/prisma";
import { numberFromDb } from "../../db/number-from-db";

export type MetricsRange = "24h" | "7d";

export interface OrderMetricsFigures {
  total: number;
  completed: number;
  /** Placed, then refunded. */
  cancelled: number;
  /** Cancelled at placement (insufficient balance): nothing charged. */
  refused: number;
  processing: number;
  pending: number;
  /** Charged and kept: amount_cents of completed orders. */
  revenueCents: number;
  /** Null when no placed order finished. */
  successRate: number | null;
  /** Fulfilment time of completed orders (to 0.1 s, as invoices' durationSec); null when none. */
  p50Seconds: number | null;
  p95Seconds: number | null;
}

interface OrderMetricsBucket extends OrderMetricsFigures {
  start: Date;
  /** Exclusive. */
  end: Date;
}

export interface OrderMetrics {
  range: MetricsRange;
  unit: "hour" | "day";
  /** Oldest first; the last bucket is the current hour or day (still filling). */
  buckets: OrderMetricsBucket[];
  /** The whole range (percentiles over all its orders, not an average of the buckets'). */
  totals: OrderMetricsFigures;
}

const RANGES = {
  "24h": { unit: "hour", count: 24 },
  "7d": { unit: "day", count: 7 },
} as const;

/** One bucket as the statement answers it (the totals row has no start). */
export type OrderMetricsRow = Pick<
  OrderMetricsFigures,
  "total" | "completed" | "cancelled" | "refused" | "processing" | "pending"
> & {
  start: Date | null;
  revenue_cents: bigint;
  p50: number | null;
  p95: number | null;
};

const EMPTY: OrderMetricsRow = {
  start: null,
  total: 0,
  completed: 0,
  cancelled: 0,
  refused: 0,
  processing: 0,
  pending: 0,
  revenue_cents: 0n,
  p50: null,
  p95: null,
};

function figures(row: OrderMetricsRow): OrderMetricsFigures {
  const finished = row.completed + row.cancelled;
  return {
    total: row.total,
    completed: row.completed,
    cancelled: row.cancelled,
    refused: row.refused,
    processing: row.processing,
    pending: row.pending,
    revenueCents: numberFromDb(row.revenue_cents),
    successRate: finished === 0 ? null : row.completed / finished,
    p50Seconds: row.p50,
    p95Seconds: row.p95,
  };
}

/** Live orders' figures; `livemode` false gives test mode's instead (never the two mixed). */
export async function readOrderMetrics(
  range: MetricsRange,
  now: Date = new Date(),
  livemode = true,
): Promise<OrderMetrics> {
  const { unit, count } = RANGES[range];
  const stepMs = unit === "hour" ? 3_600_000 : 86_400_000;
  const lastStart = Math.floor(now.getTime() / stepMs) * stepMs;
  const from = new Date(lastStart - (count - 1) * stepMs);
  const to = new Date(lastStart + stepMs);
  // The hour's rows of a key summed (a day's buckets are whole hours), keys no order is in left out;
  // the percentiles are percentile_cont's interpolation computed from the counts per time.
  // JIT off: the estimates are rough and the rows few.
  const prisma = getPrisma();
  const [, rows] = await prisma.$transaction([
    prisma.$executeRaw`SET LOCAL jit = off`,
    prisma.$queryRaw<OrderMetricsRow[]>`
  WITH grouped AS (
    SELECT date_bin(${`${stepMs / 1000} seconds`}::interval, hour, TIMESTAMPTZ '2000-01-01 00:00:00Z') AS start,
           status, order_created, took_ds, sum(orders) AS orders, sum(amount_cents) AS amount_cents
      FROM (SELECT hour, status, order_created, took_ds, orders, amount_cents FROM order_stats
             WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz AND livemode = ${livemode}
            UNION ALL
            SELECT hour, status, order_created, took_ds, orders, amount_cents FROM order_stat_changes
             WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz AND livemode = ${livemode}) counts
     GROUP BY 1, status, order_created, took_ds
    HAVING sum(orders) <> 0
  ), counted AS (
    SELECT start, GROUPING(start) AS whole,
           sum(orders)::int AS total,
           COALESCE(sum(orders) FILTER (WHERE status = 'completed'), 0)::int AS completed,
           COALESCE(sum(orders) FILTER (WHERE status = 'cancelled' AND order_created), 0)::int AS cancelled,
           COALESCE(sum(orders) FILTER (WHERE status = 'cancelled' AND NOT order_created), 0)::int AS refused,
           COALESCE(sum(orders) FILTER (WHERE status = 'processing'), 0)::int AS processing,
           COALESCE(sum(orders) FILTER (WHERE status = 'pending'), 0)::int AS pending,
           COALESCE(sum(amount_cents) FILTER (WHERE status = 'completed'), 0)::bigint AS revenue_cents
      FROM grouped
     GROUP BY GROUPING SETS ((start), ())
  ), times AS (
    SELECT start, GROUPING(start) AS whole, took_ds::float8 / 10 AS seconds, sum(orders)::float8 AS n
      FROM grouped
     WHERE status = 'completed' AND took_ds IS NOT NULL
     GROUP BY GROUPING SETS ((start, took_ds), (took_ds))
  ), ranked AS (
    SELECT start, whole, seconds,
           sum(n) OVER (PARTITION BY whole, start ORDER BY seconds) AS upto,
           sum(n) OVER (PARTITION BY whole, start) AS n
      FROM times
  ), ends AS (
    SELECT start, whole, max(n) AS n,
           min(seconds) FILTER (WHERE upto > floor(0.5::float8 * (n - 1))) AS p50_lower,
           min(seconds) FILTER (WHERE upto > ceil(0.5::float8 * (n - 1))) AS p50_upper,
           min(seconds) FILTER (WHERE upto > floor(0.95::float8 * (n - 1))) AS p95_lower,
           min(seconds) FILTER (WHERE upto > ceil(0.95::float8 * (n - 1))) AS p95_upper
      FROM ranked
     GROUP BY whole, start
  )
  SELECT c.start, c.total, c.completed, c.cancelled, c.refused, c.processing, c.pending, c.revenue_cents,
         e.p50_lower + (e.p50_upper - e.p50_lower) * (0.5::float8 * (e.n - 1) - floor(0.5::float8 * (e.n - 1))) AS p50,
         e.p95_lower + (e.p95_upper - e.p95_lower) * (0.95::float8 * (e.n - 1) - floor(0.95::float8 * (e.n - 1))) AS p95
    FROM counted c
    LEFT JOIN ends e ON e.whole = c.whole AND e.start IS NOT DISTINCT FROM c.start`,
  ]);
  const byStart = new Map(rows.filter((row) => row.start !== null).map((row) => [row.start!.getTime(), row]));
  const totalsRow = rows.find((row) => row.start === null) ?? EMPTY;
  const buckets: OrderMetricsBucket[] = [];
  for (let i = 0; i < count; i++) {
    const start = from.getTime() + i * stepMs;
    buckets.push({ start: new Date(start), end: new Date(start + stepMs), ...figures(byStart.get(start) ?? EMPTY) });
  }
  return { range, unit, buckets, totals: figures(totalsRow) };
}
