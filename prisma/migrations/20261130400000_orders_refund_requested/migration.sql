-- An order carries whether its holder asked for its refund, so its invoice reads the request only
-- where there is one (GET /orders/:id and /history on completed orders make no query for the rest).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE "orders" ADD COLUMN "refund_requested" BOOLEAN NOT NULL DEFAULT false;
UPDATE "orders" o SET "refund_requested" = true FROM "refund_requests" r WHERE r."order_id" = o."id";
ALTER TYPE order_record ADD ATTRIBUTE "refundRequested" boolean;
