-- Every pack as a client sees it, at the price of the given tier (null: list prices): GET /products
-- (listed packs), /products?updatedSince, /products/{id} (any pack that ever existed) and the
-- worker's product.updated events all read it, so an event says what the API answers.
-- "unorderableReason" is the code POST /orders answers for the pack, in the order it checks them
-- (null: orderable); `real_supplier_required` is true for a live key in production. Inlined: a
-- column the caller does not select (the stock count) costs nothing.
CREATE OR REPLACE FUNCTION product_view(price_tier_id integer, real_supplier_required boolean)
RETURNS TABLE (
  "productId" integer,
  "catalogId" text,
  "packName" text,
  "priceCents" bigint,
  "slug" text,
  "gameName" text,
  "productName" text,
  "kind" "LineKind",
  "listed" boolean,
  "unorderableReason" text,
  "stock" integer,
  "changedAt" timestamptz,
  "lineSortOrder" integer,
  "lineId" integer,
  "sortOrder" integer
) LANGUAGE sql STABLE AS $$
  SELECT p.id, p.catalog_id, p.pack_name, pack_price(p.price_cents, tp.price_cents, tp.percent_off_bp),
         l.slug, l.game_name, l.product_name, l.kind, p.active AND l.available,
         CASE WHEN NOT (l.available AND l.orderable) THEN 'GAME_DISABLED'
              WHEN NOT p.active THEN 'PRODUCT_DISABLED'
              WHEN l.kind = 'topup' AND product_view.real_supplier_required AND NOT real_supplier_carries(p.id)
                THEN 'INVALID_PRODUCT'
              WHEN l.kind IN ('gamekey', 'giftcard')
                   AND NOT EXISTS (SELECT 1 FROM inventory_codes c WHERE c.product_id = p.id AND c.status = 'available')
                THEN 'INSUFFICIENT_STOCK'
         END,
         CASE WHEN l.kind IN ('gamekey', 'giftcard')
              THEN (SELECT count(*)::int FROM inventory_codes c WHERE c.product_id = p.id AND c.status = 'available')
         END,
         p.changed_at, l.sort_order, l.id, p.sort_order
    FROM products p
    JOIN game_lines l ON l.id = p.line_id
    LEFT JOIN price_tier_prices tp ON tp.price_tier_id = product_view.price_tier_id AND tp.product_id = p.id
$$;
