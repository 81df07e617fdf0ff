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
  "24h": { unit: "hour", count: 24 },
  "7d": { unit: "day", count: 7 },
} as const;

/** One group of the window's orders: same bucket, status, refusal flag and fulfilment time. */
interface GroupRow {
  start: Date;
  status: "pending" | "processing" | "completed" | "cancelled";
  order_created: boolean;
  /** Fulfilment time of completed orders (milliseconds apart, as the columns hold); null otherwise. */
  seconds: number | null;
  orders: number;
  amount_cents: bigint;
}

/** Figures being summed, with the completed orders' fulfilment times as a histogram (seconds → orders). */
class Tally {
  total = 0;
  completed = 0;
  cancelled = 0;
  refused = 0;
  processing = 0;
  pending = 0;
  revenueCents = 0;
  times = new Map<number, number>();

  add(row: GroupRow): void {
    this.total += row.orders;
    if (row.status === "completed") {
      this.completed += row.orders;
      this.revenueCents += numberFromDb(row.amount_cents);
      if (row.seconds !== null) this.times.set(row.seconds, (this.times.get(row.seconds) ?? 0) + row.orders);
    } else if (row.status === "cancelled") {
      if (row.order_created) this.cancelled += row.orders;
      else this.refused += row.orders;
    } else if (row.status === "processing") this.processing += row.orders;
    else this.pending += row.orders;
  }

  figures(): OrderMetricsFigures {
    const finished = this.completed + this.cancelled;
    const sorted = [...this.times].sort((a, b) => a[0] - b[0]);
    return {
      total: this.total,
      completed: this.completed,
      cancelled: this.cancelled,
      refused: this.refused,
      processing: this.processing,
      pending: this.pending,
      revenueCents: this.revenueCents,
      successRate: finished === 0 ? null : this.completed / finished,
      p50Seconds: percentileCont(sorted, 0.5),
      p95Seconds: percentileCont(sorted, 0.95),
    };
  }
}

/**
 * PostgreSQL's percentile_cont over the values a histogram holds (ascending [value, how many]):
 * the values at ranks floor and ceil of fraction × (n - 1), linearly interpolated.
 */
function percentileCont(histogram: [number, number][], fraction: number): number | null {
  const n = histogram.reduce((sum, [, count]) => sum + count, 0);
  if (n === 0) return null;
  const position = fraction * (n - 1);
  const lowerRank = Math.floor(position);
  const upperRank = Math.ceil(position);
  const valueAt = (rank: number) => {
    let seen = 0;
    for (const [value, count] of histogram) {
      seen += count;
      if (rank < seen) return value;
    }
    return histogram[histogram.length - 1][0];
  };
  const lower = valueAt(lowerRank);
  if (upperRank === lowerRank) return lower;
  return lower + (valueAt(upperRank) - lower) * (position - lowerRank);
}

export async function readOrderMetrics(range: MetricsRange, now: Date = new Date()): Promise<OrderMetrics> {
  const { unit, count } = RANGES[range];
  const stepMs = unit === "hour" ? 3_600_000 : 86_400_000;
  const lastStart = Math.floor(now.getTime() / stepMs) * stepMs;
  const from = new Date(lastStart - (count - 1) * stepMs);
  const to = new Date(lastStart + stepMs);
  // The window's orders, read from the covering index on (created_at, status, order_created,
  // amount_cents, finished_at) alone (an index-only scan: their wide heap rows stay unread), and
  // grouped by hash on bucket, status and fulfilment time: no sort of the window's rows. The
  // groups are few (fulfilment times repeat: the columns hold milliseconds), and the figures,
  // percentiles included, are computed from them below exactly as percentile_cont computes them
  // from the rows. date_bin from a UTC midnight is date_trunc in UTC. The bounds are parameters
  // the planner sees, so it estimates the window's size.
  const rows = await getPrisma().$queryRaw<GroupRow[]>`
  SELECT date_bin(${`${stepMs / 1000} seconds`}::interval, created_at, TIMESTAMPTZ '2000-01-01 00:00:00Z') AS start,
         status::text AS status, order_created, extract(epoch FROM took)::float8 AS seconds,
         count(*)::int AS orders, sum(amount_cents)::bigint AS amount_cents
    FROM (SELECT created_at, status, order_created, amount_cents,
                 CASE WHEN status = 'completed' THEN finished_at - created_at END AS took
            FROM orders
           WHERE created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz) windowed
   GROUP BY 1, status, order_created, took`;
  const tallies = Array.from({ length: count }, () => new Tally());
  const totals = new Tally();
  for (const row of rows) {
    tallies[Math.round((row.start.getTime() - from.getTime()) / stepMs)].add(row);
    totals.add(row);
  }
  return {
    range,
    unit,
    buckets: tallies.map((tally, i) => {
      const start = from.getTime() + i * stepMs;
      return { start: new Date(start), end: new Date(start + stepMs), ...tally.figures() };
    }),
    totals: totals.figures(),
  };
}
