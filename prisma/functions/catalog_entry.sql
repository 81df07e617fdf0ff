-- The pack a placement buys, with its line, at the price of the given tier (null: list price).
-- "priceCents" is what the order is charged per unit; "realSupplier" is real_supplier_carries().
CREATE OR REPLACE FUNCTION catalog_entry(catalog_id text, price_tier_id integer)
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
  "supplier" text,
  "realSupplier" boolean
) LANGUAGE sql STABLE AS $$
  SELECT p.id, p.catalog_id, p.pack_name, pack_price(p.price_cents, tp.price_cents, tp.percent_off_bp), p.active,
         p.supplier_sku, l.slug, l.code, l.kind, l.required_fields, l.server_id_options, l.available, l.orderable,
         l.supplier, real_supplier_carries(p.id)
    FROM products p
    JOIN game_lines l ON l.id = p.line_id
    LEFT JOIN price_tier_prices tp ON tp.price_tier_id = catalog_entry.price_tier_id AND tp.product_id = p.id
   WHERE p.catalog_id = catalog_entry.catalog_id
$$;
