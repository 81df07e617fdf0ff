-- The dashboard overview aggregates every order of the last 24 hours and 7 days (counts by status,
-- revenue, fulfilment-time percentiles). Through the plain created_at index it read each order's
-- heap row (wide: identifiers, public id, fingerprint), about 600,000 rows for 7 days at 1M orders.
-- With the columns it reads in the index, it scans the index alone. The new index replaces the
-- plain one (same leading column, so every created_at range filter keeps an index). Adding the
-- columns costs placement and settlement nothing measurable: their updates change status, which
-- the (status, needs_admin) index already holds, so they were never HOT updates, and every update
-- that was HOT (attempts, supplier reference, updated_at) still is.

-- DropIndex
DROP INDEX "orders_created_at_idx";

-- CreateIndex
CREATE INDEX "orders_created_at_covering_idx" ON "orders"("created_at", "status", "order_created", "amount_cents", "finished_at");
