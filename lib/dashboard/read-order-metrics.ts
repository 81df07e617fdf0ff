// The numbers behind the overview charts, per hour over the last 24 hours or per day over the last
// 7 days (UTC), in one query. Every order is counted in the bucket of its created_at, by its
// status now:
//   completed / cancelled / processing / pending  as stored; cancelled means placed, then refunded
//   refused      cancelled at placement (orderCreated false: insufficient balance), nothing charged
//   revenueCents sum of amount_cents of completed orders (what was charged and kept)
//   successRate  completed / (completed + cancelled): of the placed orders that finished, the share
//                delivered; null when none finished. Refusals are wallet shortfalls, not failures.
//   p50/p95      fulfilment time (finished_at - created_at, seconds) of completed orders,
//                interpolated percentiles (percentile_cont); null when none completed
import { getPrisma } from "../db/prisma";
import { numberFromDb } from "../db/number-from-db";

export type MetricsRange = "24h" | "7d";

export interface OrderMetricsFigures {
  total: number;
  completed: number;
  cancelled: number;
  refused: number;
  processing: number;
  pending: number;
  revenueCents: number;
  successRate: number | null;
  p50Seconds: number | null;
  p95Seconds: number | null;
}

export interface OrderMetricsBucket extends OrderMetricsFigures {
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
  "24h": { unit: "hour", count: 24, step: "1 hour" },
  "7d": { unit: "day", count: 7, step: "1 day" },
} as const;

interface Row {
  start: Date | null;
  total: number;
  completed: number;
  cancelled: number;
  refused: number;
  processing: number;
  pending: number;
  revenue_cents: bigint;
  p50: number | null;
  p95: number | null;
}

function figures(row: Row): OrderMetricsFigures {
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

export async function readOrderMetrics(range: MetricsRange, now: Date = new Date()): Promise<OrderMetrics> {
  const { unit, count, step } = RANGES[range];
  // Bucketing by date_trunc over generate_series with per-bucket percentiles is beyond groupBy: one
  // typed raw query, parameters bound by the tagged template.
  const rows = await getPrisma().$queryRaw<Row[]>`
  WITH bounds AS (
    SELECT date_trunc(${unit}, ${now}::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS last_start
  ), buckets AS (
    SELECT generate_series(last_start - (${count}::int - 1) * ${step}::interval, last_start, ${step}::interval) AS start FROM bounds
  ), scoped AS (
    SELECT date_trunc(${unit}, o.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket,
           o.status, o.order_created, o.amount_cents,
           CASE WHEN o.status = 'completed' AND o.finished_at IS NOT NULL
                THEN extract(epoch FROM o.finished_at - o.created_at)::float8 END AS seconds
      FROM orders o, bounds
     WHERE o.created_at >= bounds.last_start - (${count}::int - 1) * ${step}::interval
       AND o.created_at < bounds.last_start + ${step}::interval
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
   ORDER BY b.start NULLS LAST`;
  const totalsRow = rows.find((row) => row.start === null)!;
  const stepMs = unit === "hour" ? 3_600_000 : 86_400_000;
  return {
    range,
    unit,
    buckets: rows
      .filter((row) => row.start !== null)
      .map((row) => ({ start: row.start!, end: new Date(row.start!.getTime() + stepMs), ...figures(row) })),
    totals: figures(totalsRow),
  };
}
