-- The triggers orders_counted and orders_recounted: each order's change to the overview's counts
-- (order_stats), appended to order_stat_changes in the transaction that makes it: -1 for the key the
-- order leaves, +1 for the one it enters. Insert-only, so concurrent placements and settlements
-- share no row. The key: the hour of created_at (UTC), mode, status, charged, and a completed
-- order's fulfilment time in tenths of a second (half up), as recount_order_stats counts them.
CREATE OR REPLACE FUNCTION count_order_stats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- OLD is null on an insert and NEW on a delete: their row drops out (created_at is never null).
  INSERT INTO order_stat_changes (hour, livemode, status, order_created, took_ds, orders, amount_cents)
  SELECT date_bin('1 hour', o.created_at, TIMESTAMPTZ '2000-01-01 00:00:00Z'), o.livemode, o.status, o.order_created,
         CASE WHEN o.status = 'completed'
              THEN (extract(epoch FROM date_bin('100 milliseconds', o.finished_at + interval '50 milliseconds', o.created_at) - o.created_at) * 10)::int END,
         o.sign, o.sign * o.amount_cents
    FROM (VALUES (OLD.created_at, OLD.livemode, OLD.status, OLD.order_created, OLD.finished_at, OLD.amount_cents, -1),
                 (NEW.created_at, NEW.livemode, NEW.status, NEW.order_created, NEW.finished_at, NEW.amount_cents, 1))
         AS o(created_at, livemode, status, order_created, finished_at, amount_cents, sign)
   WHERE o.created_at IS NOT NULL;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER orders_counted AFTER INSERT OR DELETE ON "orders"
  FOR EACH ROW EXECUTE FUNCTION count_order_stats();

-- Only when a column the key or the amount reads changed.
CREATE OR REPLACE TRIGGER orders_recounted
  AFTER UPDATE OF created_at, livemode, status, order_created, finished_at, amount_cents ON "orders"
  FOR EACH ROW
  WHEN ((OLD.created_at, OLD.livemode, OLD.status, OLD.order_created, OLD.finished_at, OLD.amount_cents)
        IS DISTINCT FROM (NEW.created_at, NEW.livemode, NEW.status, NEW.order_created, NEW.finished_at, NEW.amount_cents))
  EXECUTE FUNCTION count_order_stats();
