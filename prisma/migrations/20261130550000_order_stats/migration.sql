-- The dashboard overview's counts, kept as orders change instead of counted from the orders on each
-- view: at a million orders the 7 days' figures read some 600,000 index entries. One row per hour
-- and what the overview tells apart (mode, status, charged, fulfilment time to 0.1 s), with its
-- number of orders and their amount. The trigger count_order_stats (prisma/functions/) appends
-- each change to order_stat_changes, insert-only so that placements and settlements never wait on
-- a shared counter row; the worker folds the changes into order_stats. The tables start empty: the
-- function files count the existing orders once, when the trigger is created, under its lock
-- (recount_order_stats.sql), so no order written meanwhile is missed.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE "order_stats" (
    "id" BIGSERIAL NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "status" "OrderStatus" NOT NULL,
    "order_created" BOOLEAN NOT NULL,
    "took_ds" INTEGER,
    "orders" INTEGER NOT NULL,
    "amount_cents" BIGINT NOT NULL,

    CONSTRAINT "order_stats_pkey" PRIMARY KEY ("id")
);

-- took_ds is null for every order that is not completed: one row for all of them.
CREATE UNIQUE INDEX "order_stats_hour_livemode_status_order_created_took_ds_key" ON "order_stats"("hour", "livemode", "status", "order_created", "took_ds") NULLS NOT DISTINCT;

CREATE TABLE "order_stat_changes" (
    "id" BIGSERIAL NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "status" "OrderStatus" NOT NULL,
    "order_created" BOOLEAN NOT NULL,
    "took_ds" INTEGER,
    "orders" INTEGER NOT NULL,
    "amount_cents" BIGINT NOT NULL,

    CONSTRAINT "order_stat_changes_pkey" PRIMARY KEY ("id")
);
