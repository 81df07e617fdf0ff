-- Suppliers as data: supplier accounts, and per pack the offers of the suppliers that carry it (SKU,
-- cost, priority). An order is routed to its pack's offers by priority (lib/fulfilment/sql/route-order.ts)
-- and records the supplier that fulfilled it and the cost at that moment.
CREATE TABLE "suppliers" (
  "id" SERIAL NOT NULL,
  "name" TEXT NOT NULL,
  "kind" TEXT NOT NULL,
  "settings" JSONB NOT NULL DEFAULT '{}',
  "paused_at" TIMESTAMPTZ(3),
  "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
  "circuit_open_until" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "suppliers_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "suppliers_kind_check" CHECK ("kind" IN ('sandbox', 'h2h'))
);
CREATE UNIQUE INDEX "suppliers_name_key" ON "suppliers"("name");

CREATE TABLE "supplier_offers" (
  "id" SERIAL NOT NULL,
  "product_id" INTEGER NOT NULL,
  "supplier_id" INTEGER NOT NULL,
  "sku" TEXT NOT NULL,
  "cost_cents" BIGINT NOT NULL DEFAULT 0,
  "priority" INTEGER NOT NULL DEFAULT 1,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "supplier_offers_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "supplier_offers_cost_cents_check" CHECK ("cost_cents" >= 0)
);
CREATE UNIQUE INDEX "supplier_offers_product_id_supplier_id_key" ON "supplier_offers"("product_id", "supplier_id");
CREATE INDEX "supplier_offers_supplier_id_idx" ON "supplier_offers"("supplier_id");
ALTER TABLE "supplier_offers" ADD CONSTRAINT "supplier_offers_product_id_fkey"
  FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "supplier_offers" ADD CONSTRAINT "supplier_offers_supplier_id_fkey"
  FOREIGN KEY ("supplier_id") REFERENCES "suppliers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The supplier the order is with now (then the one that fulfilled it), the suppliers it has been
-- with, and what fulfilling it cost (0 when cancelled).
ALTER TABLE "orders" ADD COLUMN "supplier_id" INTEGER;
ALTER TABLE "orders" ADD COLUMN "tried_supplier_ids" INTEGER[] NOT NULL DEFAULT '{}';
ALTER TABLE "orders" ADD COLUMN "cost_cents" BIGINT;
ALTER TABLE "orders" ADD CONSTRAINT "orders_supplier_id_fkey"
  FOREIGN KEY ("supplier_id") REFERENCES "suppliers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Today's data: each line's supplier becomes a supplier account, each top-up pack's SKU its one offer.
INSERT INTO "suppliers" ("name", "kind")
SELECT DISTINCT l."supplier", l."supplier" FROM "game_lines" l WHERE l."supplier" IN ('sandbox', 'h2h');
INSERT INTO "supplier_offers" ("product_id", "supplier_id", "sku")
SELECT p."id", s."id", p."supplier_sku"
  FROM "products" p JOIN "game_lines" l ON l."id" = p."line_id" JOIN "suppliers" s ON s."name" = l."supplier"
 WHERE l."kind" = 'topup' AND p."supplier_sku" IS NOT NULL;
UPDATE "orders" o SET "supplier_id" = s."id" FROM "suppliers" s WHERE s."name" = o."supplier" AND o."livemode";

-- Supplier health reads the last hour of supplier attempts (lib/suppliers/sql/read-supplier-health.ts).
CREATE INDEX "order_events_created_at_idx" ON "order_events"("created_at") WHERE "data" ? 'supplierId';
