-- Test mode. An account's test wallet is an account of its own (live_account_id names the holder's
-- live account), so its orders, ledger, events, trxids and webhook endpoints are apart from the live
-- ones by the same account scoping every statement already has. A test key belongs to the holder
-- (api_keys.livemode false) and acts on the test account: api_caller answers that account's id.
ALTER TABLE "accounts" ADD COLUMN "live_account_id" INTEGER;
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_live_account_id_fkey"
  FOREIGN KEY ("live_account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE UNIQUE INDEX "accounts_live_account_id_key" ON "accounts"("live_account_id");

ALTER TABLE "api_keys" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;

-- Set by place_order from the account, so the dashboard can leave test orders out of its figures.
ALTER TABLE "orders" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
DROP INDEX "orders_created_at_covering_idx";
CREATE INDEX "orders_created_at_covering_idx" ON "orders"("created_at", "status", "order_created", "amount_cents", "finished_at", "livemode");

ALTER TYPE order_record ADD ATTRIBUTE "livemode" boolean;
