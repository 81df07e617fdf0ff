-- The overview's margins table, kept as orders settle like its other figures (order_stats): per
-- hour of created_at, line and supplier, the live completed orders, their revenue and their cost.
-- The trigger count_order_stats writes the margin columns into the changes it already appends (set
-- only for live completed orders), so no order change costs a second insert; the worker's fold
-- moves them into margin_stats. The function files count the existing orders once.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE "order_stat_changes" ADD COLUMN "line_slug" TEXT,
ADD COLUMN "supplier" TEXT,
ADD COLUMN "cost_cents" BIGINT;

CREATE TABLE "margin_stats" (
    "id" BIGSERIAL NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "line_slug" TEXT NOT NULL,
    "supplier" TEXT NOT NULL,
    "orders" INTEGER NOT NULL,
    "revenue_cents" BIGINT NOT NULL,
    "cost_cents" BIGINT NOT NULL,

    CONSTRAINT "margin_stats_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "margin_stats_hour_line_slug_supplier_key" ON "margin_stats"("hour", "line_slug", "supplier");

-- The margins' partial hours at a window's edges, read from the orders: live completed orders by
-- created_at with what the margins sum, so that read is an index-only scan. Orders enter it when
-- they complete, not when placed.
CREATE INDEX "orders_completed_margins_idx" ON "orders"("created_at") INCLUDE ("line_slug", "supplier", "amount_cents", "cost_cents") WHERE "livemode" AND "status" = 'completed';
