-- Catalog change events: each pack's time of its last change a client can see (GET /products'
-- updatedAt and ?updatedSince), whether a code-delivered pack had codes at the worker's last look
-- (stock crossing zero), the packs and accounts changed since the worker's last look (the triggers in
-- prisma/functions/mark_*.sql write them), the accounts that watch the catalog and what each was last
-- told of each pack (lib/catalog/send-catalog-changes.ts compares against it).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE "products" ADD COLUMN "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "products" ADD COLUMN "has_stock" BOOLEAN;
UPDATE "products" SET "changed_at" = "updated_at";
UPDATE "products" p
   SET "has_stock" = EXISTS (SELECT 1 FROM "inventory_codes" c WHERE c."product_id" = p."id" AND c."status" = 'available')
  FROM "game_lines" l
 WHERE l."id" = p."line_id" AND l."kind" IN ('gamekey', 'giftcard');
CREATE INDEX "products_changed_at_idx" ON "products"("changed_at");

CREATE TABLE "catalog_changes" (
  "product_id" INTEGER NOT NULL,
  "mark" BIGINT NOT NULL DEFAULT 1,
  CONSTRAINT "catalog_changes_pkey" PRIMARY KEY ("product_id")
);
ALTER TABLE "catalog_changes" ADD CONSTRAINT "catalog_changes_product_id_fkey"
  FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "catalog_account_changes" (
  "account_id" INTEGER NOT NULL,
  "mark" BIGINT NOT NULL DEFAULT 1,
  CONSTRAINT "catalog_account_changes_pkey" PRIMARY KEY ("account_id")
);
ALTER TABLE "catalog_account_changes" ADD CONSTRAINT "catalog_account_changes_account_id_fkey"
  FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "catalog_watchers" (
  "account_id" INTEGER NOT NULL,
  "since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "catalog_watchers_pkey" PRIMARY KEY ("account_id")
);
ALTER TABLE "catalog_watchers" ADD CONSTRAINT "catalog_watchers_account_id_fkey"
  FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "account_product_views" (
  "account_id" INTEGER NOT NULL,
  "product_id" INTEGER NOT NULL,
  "pack_name" TEXT NOT NULL,
  "price_cents" BIGINT NOT NULL,
  "unorderable_reason" TEXT,
  CONSTRAINT "account_product_views_pkey" PRIMARY KEY ("account_id", "product_id")
);
CREATE INDEX "account_product_views_product_id_idx" ON "account_product_views"("product_id");
ALTER TABLE "account_product_views" ADD CONSTRAINT "account_product_views_account_id_fkey"
  FOREIGN KEY ("account_id") REFERENCES "catalog_watchers"("account_id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "account_product_views" ADD CONSTRAINT "account_product_views_product_id_fkey"
  FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;
