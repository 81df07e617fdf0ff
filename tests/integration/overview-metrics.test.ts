// The dashboard overview's metrics (lib/dashboard/sql/read-order-metrics.ts) against an independent SQL
// computation over the orders table: the query the overview ran before it read the covering index
// (buckets from generate_series, every order joined to its bucket, percentile_cont over the rows),
// with the one definition that changed: fulfilment times are rounded to 0.1 s before their
// percentiles are taken. Over a few thousand orders in many hours and every status, with fulfilment
// times at millisecond precision, for several "now"s, and again after some of them changed status
// long after the hour they were placed in.
import { beforeAll, describe, expect, it } from "vitest";
import {
  readOrderMetrics,
  type MetricsRange,
  type OrderMetricsFigures,
  type OrderMetricsRow,
} from "@/lib/dashboard/sql/read-order-metrics";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";

const ORDERS = 3_000;
/** The generated orders span 9 days from here (so the 7-day range is full and has edges). */
const FIRST = "2019-06-01T00:00:00Z";

useCleanDatabase();
beforeAll(async () => {
  const account = await createAccount({ balanceCents: 100_000 });
  const placed = await order(account.key, { pid: "SVCBR60", trxid: newTrxid("overview"), userId: "851234" });
  expect(placed.status).toBe(200);
  // Test data: copies of a real order, spread over 9 days at millisecond times, in every status the
  // overview counts apart, with fulfilment times from 0 to 10 minutes at millisecond precision.
  await sql(
    `INSERT INTO orders (public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id, catalog_id,
                         line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents, user_id, order_created,
                         status, created_at, updated_at, finished_at, key_seq)
     SELECT 'TEST-' || g, t.account_id, t.api_key_id, 'ov-' || g, 'ov-' || g, t.request_fingerprint, t.product_id, t.catalog_id,
            t.line_slug, t.line_kind, t.pack_name, t.unit_price_cents, 1, 100 + g % 500, t.user_id, s.order_created,
            s.status::"OrderStatus", c.at, c.at,
            CASE WHEN s.status IN ('completed', 'cancelled') AND g % 97 <> 0 THEN c.at + ((g * 7919) % 600000) * interval '1 millisecond' END,
            t.key_seq + g
       FROM orders t, generate_series(1, $2::int) g
      CROSS JOIN LATERAL (SELECT $3::timestamptz + ((g::bigint * 829348951) % (9 * 86400000)) * interval '1 millisecond' AS at) c
      CROSS JOIN LATERAL (SELECT CASE WHEN g % 10 < 6 THEN 'completed' WHEN g % 10 < 8 THEN 'cancelled'
                                      WHEN g % 10 = 8 THEN 'processing' ELSE 'pending' END AS status,
                                 g % 10 <> 7 AS order_created) s
      WHERE t.public_id = $1`,
    [placed.json.orderId, ORDERS, FIRST],
  );
  // The key's order counter numbers the copies too, as placement would have.
  await sql(`UPDATE api_keys SET order_count = order_count + $2 WHERE id = $1`, [account.keyId, ORDERS]);
});

const RANGES = { "24h": ["hour", 24, "1 hour"], "7d": ["day", 7, "1 day"] } as const;

/** The overview's figures as its former query computed them (times to 0.1 s), straight from the orders table. */
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
        WHERE o.created_at >= bounds.last_start - ($3::int - 1) * $4::interval
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

async function expectMatchesReference(range: MetricsRange, now: Date): Promise<number> {
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

describe("overview metrics equal a direct computation over the orders", () => {
  // Mid-hour; the first instant of a day; the last instant of an hour; a window half past the orders.
  const nows = [
    "2019-06-09T13:37:12.345Z",
    "2019-06-08T00:00:00.000Z",
    "2019-06-05T06:59:59.999Z",
    "2019-06-10T20:00:00.000Z",
  ];

  it("for 24 hours and 7 days at several moments, empty buckets included", async () => {
    for (const now of nows) {
      const day = await expectMatchesReference("24h", new Date(now));
      const week = await expectMatchesReference("7d", new Date(now));
      expect(day, now).toBeGreaterThan(0);
      expect(week, now).toBeGreaterThan(day);
    }
    // Every status and an empty bucket were in play.
    const statuses = await sql(`SELECT DISTINCT status::text, order_created FROM orders WHERE created_at >= $1`, [
      FIRST,
    ]);
    expect(statuses).toHaveLength(5);
    const late = await readOrderMetrics("24h", new Date("2019-06-10T20:00:00.000Z"));
    expect(late.buckets.at(-1)!.total).toBe(0);
    expect(late.buckets.at(-1)!.p50Seconds).toBeNull();
  });

  it("after orders change status days after the hour they were placed in", async () => {
    // Open orders settle much later: pending ones complete, processing ones are refunded.
    const changed = await sql(
      `UPDATE orders SET status = CASE status WHEN 'pending' THEN 'completed' ELSE 'cancelled' END::"OrderStatus",
                         finished_at = created_at + interval '3 days 1.5 seconds', updated_at = now()
        WHERE created_at >= $1 AND status IN ('pending', 'processing') AND id % 3 <> 0
        RETURNING id`,
      [FIRST],
    );
    expect(changed.length).toBeGreaterThan(100);
    for (const now of nows) {
      await expectMatchesReference("24h", new Date(now));
      await expectMatchesReference("7d", new Date(now));
    }
  });
});
