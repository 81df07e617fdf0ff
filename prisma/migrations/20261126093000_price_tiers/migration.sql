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

-- The one price rule, for the catalog reads (GET /products, /catalog, the dashboard) and the
-- placement's catalog_entry alike: the tier's fixed price, else the list price less the tier's
-- percent rounded half up to the cent, else the list price. Never below 1 cent: an order always
-- debits the wallet (a ledger entry is never zero). Inlined, so it costs no call per row.
CREATE FUNCTION pack_price(list_price_cents bigint, tier_price_cents bigint, tier_percent_off_bp integer)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT greatest(1, CASE
           WHEN tier_price_cents IS NOT NULL THEN tier_price_cents
           WHEN tier_percent_off_bp IS NOT NULL
             THEN (list_price_cents * (10000 - tier_percent_off_bp) + 5000) / 10000
           ELSE list_price_cents
         END)
$$;

-- api_caller as before, with the holder's tier: a test key's account is the test account, its
-- prices the holder's.
DROP FUNCTION api_caller(text);
CREATE FUNCTION api_caller(key_hash text)
RETURNS TABLE (
  "keyId" integer,
  "accountId" integer,
  "requireIpAllowlist" boolean,
  "keyCreatedAt" timestamptz,
  "cidrs" text[],
  "apiEnabled" boolean,
  "apiDisabledByAdmin" boolean,
  "bannedAt" timestamptz,
  "restrictedUntil" timestamptz,
  "accountCreatedAt" timestamptz,
  "totalCreditedCents" bigint,
  "livemode" boolean,
  "priceTierId" integer
) LANGUAGE sql STABLE AS $$
  SELECT k.id, CASE WHEN k.livemode THEN a.id ELSE t.id END, k.require_ip_allowlist, k.created_at,
         COALESCE((SELECT array_agg(e.cidr) FROM ip_allow_entries e WHERE e.api_key_id = k.id), '{}'),
         a.api_enabled, a.api_disabled_by_admin, a.banned_at, a.restricted_until, a.created_at,
         CASE WHEN k.livemode THEN a.total_credited_cents ELSE t.total_credited_cents END, k.livemode,
         a.price_tier_id
    FROM api_keys k
    JOIN accounts a ON a.id = k.account_id
    LEFT JOIN accounts t ON NOT k.livemode AND t.live_account_id = a.id
   WHERE k.key_hash = api_caller.key_hash AND k.revoked_at IS NULL
$$;

-- The pack a placement buys, with its line, at the price of the given tier (null: list price).
-- "priceCents" is what the order is charged per unit.
DROP FUNCTION catalog_entry(text);
CREATE FUNCTION catalog_entry(catalog_id text, price_tier_id integer)
RETURNS TABLE (
  "productId" integer,
  "catalogId" text,
  "packName" text,
  "priceCents" bigint,
  "productActive" boolean,
  "supplierSku" text,
  "lineSlug" text,
  "lineCode" text,
  "lineKind" "LineKind",
  "requiredFields" jsonb,
  "serverIdOptions" jsonb,
  "lineAvailable" boolean,
  "lineOrderable" boolean,
  "supplier" text
) LANGUAGE sql STABLE AS $$
  SELECT p.id, p.catalog_id, p.pack_name, pack_price(p.price_cents, tp.price_cents, tp.percent_off_bp), p.active,
         p.supplier_sku, l.slug, l.code, l.kind, l.required_fields, l.server_id_options, l.available, l.orderable,
         l.supplier
    FROM products p
    JOIN game_lines l ON l.id = p.line_id
    LEFT JOIN price_tier_prices tp ON tp.price_tier_id = catalog_entry.price_tier_id AND tp.product_id = p.id
   WHERE p.catalog_id = catalog_entry.catalog_id
$$;
