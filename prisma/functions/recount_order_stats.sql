-- The overview's counts (order_stats) and margins (margin_stats) counted again from the orders
-- themselves, with writes to the orders held off meanwhile: for orders written without the trigger
-- count_order_stats (before it existed, or with triggers off, as the scale bench's seed writes
-- them). Counts as the trigger does.
CREATE OR REPLACE FUNCTION recount_order_stats() RETURNS void LANGUAGE sql AS $$
  LOCK TABLE orders IN SHARE MODE;
  DELETE FROM order_stat_changes;
  DELETE FROM order_stats;
  DELETE FROM margin_stats;
  INSERT INTO order_stats (hour, livemode, status, order_created, took_ds, orders, amount_cents)
  SELECT date_bin('1 hour', created_at, TIMESTAMPTZ '2000-01-01 00:00:00Z'), livemode, status, order_created,
         CASE WHEN status = 'completed'
              THEN (extract(epoch FROM date_bin('100 milliseconds', finished_at + interval '50 milliseconds', created_at) - created_at) * 10)::int END,
         count(*), sum(amount_cents)
    FROM orders
   GROUP BY 1, 2, 3, 4, 5;
  INSERT INTO margin_stats (hour, line_slug, supplier, orders, revenue_cents, cost_cents)
  SELECT date_bin('1 hour', created_at, TIMESTAMPTZ '2000-01-01 00:00:00Z'), line_slug, COALESCE(supplier, 'none'),
         count(*), sum(amount_cents), COALESCE(sum(cost_cents), 0)
    FROM orders
   WHERE livemode AND status = 'completed'
   GROUP BY 1, 2, 3;
$$;

-- A database whose orders predate the trigger (or its margins) gets their counts here, once: the
-- trigger, created just before in this same transaction, holds off writes to the orders until it
-- commits.
SELECT recount_order_stats()
 WHERE (NOT EXISTS (SELECT FROM order_stats) AND NOT EXISTS (SELECT FROM order_stat_changes)
        AND EXISTS (SELECT FROM orders))
    OR (NOT EXISTS (SELECT FROM margin_stats) AND NOT EXISTS (SELECT FROM order_stat_changes WHERE line_slug IS NOT NULL)
        AND EXISTS (SELECT FROM orders WHERE livemode AND status = 'completed'));
