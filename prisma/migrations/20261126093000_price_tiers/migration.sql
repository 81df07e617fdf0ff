-- Price tiers: an admin-defined price list per group of accounts. A tier sets, per pack, either a
-- fixed price or a percent off the list price; a pack the tier does not name keeps its list price,
-- and so does every pack for an account on no tier.
CREATE TABLE "price_tiers" (
  "id" SERIAL NOT NULL,
  "name" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "price_tiers_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "price_tiers_name_key" ON "price_tiers"("name");

-- Exactly one of price_cents and percent_off_bp (basis points: 1250 is 12.5 % off). The primary key
-- is the hot path's lookup: one index probe per pack for the caller's tier.
CREATE TABLE "price_tier_prices" (
  "price_tier_id" INTEGER NOT NULL,
  "product_id" INTEGER NOT NULL,
  "price_cents" BIGINT,
  "percent_off_bp" INTEGER,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "price_tier_prices_pkey" PRIMARY KEY ("price_tier_id", "product_id"),
  CONSTRAINT "price_tier_prices_one_rule" CHECK (("price_cents" IS NULL) <> ("percent_off_bp" IS NULL)),
  CONSTRAINT "price_tier_prices_price_positive" CHECK ("price_cents" >= 1),
  CONSTRAINT "price_tier_prices_percent_range" CHECK ("percent_off_bp" BETWEEN 1 AND 9999)
);
CREATE INDEX "price_tier_prices_product_id_idx" ON "price_tier_prices"("product_id");
ALTER TABLE "price_tier_prices" ADD CONSTRAINT "price_tier_prices_price_tier_id_fkey"
  FOREIGN KEY ("price_tier_id") REFERENCES "price_tiers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "price_tier_prices" ADD CONSTRAINT "price_tier_prices_product_id_fkey"
  FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A live account's tier (null: list prices). A test account has none: its test keys pay the
-- holder's tier (api_caller reads the holder's). Removing a tier returns its accounts to list prices.
ALTER TABLE "accounts" ADD COLUMN "price_tier_id" INTEGER;
CREATE INDEX "accounts_price_tier_id_idx" ON "accounts"("price_tier_id");
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_price_tier_id_fkey"
  FOREIGN KEY ("price_tier_id") REFERENCES "price_tiers"("id") ON DELETE SET NULL ON UPDATE CASCADE;
