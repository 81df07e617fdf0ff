-- The dashboard's search finds an order by trxid or idempotency key across all accounts; the
-- existing indexes all start with account_id.

-- CreateIndex
CREATE INDEX "orders_trxid_idx" ON "orders"("trxid");

-- CreateIndex
CREATE INDEX "orders_idempotency_key_idx" ON "orders"("idempotency_key");
