-- The one price rule, for the catalog reads (GET /products, /catalog, the dashboard) and the
-- placement's catalog_entry alike: the tier's fixed price, else the list price less the tier's
-- percent rounded half up to the cent, else the list price. Never below 1 cent: an order always
-- debits the wallet (a ledger entry is never zero). Inlined, so it costs no call per row.
CREATE OR REPLACE FUNCTION pack_price(list_price_cents bigint, tier_price_cents bigint, tier_percent_off_bp integer)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT greatest(1, CASE
           WHEN tier_price_cents IS NOT NULL THEN tier_price_cents
           WHEN tier_percent_off_bp IS NOT NULL
             THEN (list_price_cents * (10000 - tier_percent_off_bp) + 5000) / 10000
           ELSE list_price_cents
         END)
$$;
