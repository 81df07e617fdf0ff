// The dashboard overview's metrics (lib/dashboard/sql/read-order-metrics.ts, read from the counts the
// trigger keeps) against an independent SQL computation over the orders table
// (tests/helpers/order-metrics-reference.ts). Over a few thousand orders in many hours and every status, with fulfilment
// times at millisecond precision, for several "now"s, and again after some of them changed status
// long after the hour they were placed in.
import { beforeAll, describe, expect, it } from "vitest";
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { sql } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { expectMatchesReference } from "../helpers/order-metrics-reference";

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
