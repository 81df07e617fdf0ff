-- The triggers orders_counted and orders_recounted: each order's change to the overview's counts
-- (order_stats) and margins (margin_stats), appended to order_stat_changes in the transaction that
-- makes it: -1 for the key the order leaves, +1 for the one it enters. Insert-only, so concurrent
-- placements and settlements share no row. The key: the hour of created_at (UTC), mode, status,
-- charged, and a completed order's fulfilment time in tenths of a second (half up), as
-- recount_order_stats counts them; a live completed order's line, supplier and cost ride along for
-- the margins (null for any other order, which the margins leave out).
CREATE OR REPLACE FUNCTION count_order_stats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- OLD is null on an insert and NEW on a delete: their row drops out (created_at is never null).
  INSERT INTO order_stat_changes (hour, livemode, status, order_created, took_ds, orders, amount_cents,
                                  line_slug, supplier, cost_cents)
  SELECT date_bin('1 hour', o.created_at, TIMESTAMPTZ '2000-01-01 00:00:00Z'), o.livemode, o.status, o.order_created,
         CASE WHEN o.status = 'completed'
              THEN (extract(epoch FROM date_bin('100 milliseconds', o.finished_at + interval '50 milliseconds', o.created_at) - o.created_at) * 10)::int END,
         o.sign, o.sign * o.amount_cents,
         CASE WHEN o.margined THEN o.line_slug END,
         CASE WHEN o.margined THEN COALESCE(o.supplier, 'none') END,
         CASE WHEN o.margined THEN o.sign * COALESCE(o.cost_cents, 0) END
    FROM (SELECT v.*, v.livemode AND v.status = 'completed' AS margined
            FROM (VALUES (OLD.created_at, OLD.livemode, OLD.status, OLD.order_created, OLD.finished_at, OLD.amount_cents,
                          OLD.line_slug, OLD.supplier, OLD.cost_cents, -1),
                         (NEW.created_at, NEW.livemode, NEW.status, NEW.order_created, NEW.finished_at, NEW.amount_cents,
                          NEW.line_slug, NEW.supplier, NEW.cost_cents, 1))
                 AS v(created_at, livemode, status, order_created, finished_at, amount_cents, line_slug, supplier, cost_cents, sign)) o
   WHERE o.created_at IS NOT NULL;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER orders_counted AFTER INSERT OR DELETE ON "orders"
  FOR EACH ROW EXECUTE FUNCTION count_order_stats();

-- Only when a column the key or the amount reads changed, or what the margins read of a completed
-- order (routing names the supplier of an open order: no change to count).
CREATE OR REPLACE TRIGGER orders_recounted
  AFTER UPDATE OF created_at, livemode, status, order_created, finished_at, amount_cents, line_slug, supplier, cost_cents
  ON "orders"
  FOR EACH ROW
  WHEN ((OLD.created_at, OLD.livemode, OLD.status, OLD.order_created, OLD.finished_at, OLD.amount_cents)
        IS DISTINCT FROM (NEW.created_at, NEW.livemode, NEW.status, NEW.order_created, NEW.finished_at, NEW.amount_cents)
        OR ((OLD.status = 'completed' OR NEW.status = 'completed')
            AND (OLD.line_slug, OLD.supplier, OLD.cost_cents) IS DISTINCT FROM (NEW.line_slug, NEW.supplier, NEW.cost_cents)))
  EXECUTE FUNCTION count_order_stats();
