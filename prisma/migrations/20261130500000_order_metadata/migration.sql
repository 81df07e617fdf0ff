-- The reseller's own references on an order (POST /orders' `metadata`), echoed wherever the order is
-- read. A new nullable column: nothing to scan or rewrite.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE "orders" ADD COLUMN "metadata" JSONB;
ALTER TYPE order_record ADD ATTRIBUTE "metadata" jsonb;

DROP FUNCTION IF EXISTS place_order(integer, text, integer, integer, text, text, text, text, integer, text, text, text,
                                    text, text, text, text, bigint);
