-- A placement's stock check, made before the wallet is touched (place_order): the first `wanted`
-- free codes of a product, locked to the end of the transaction (codes another placement holds are
-- skipped, not waited for). Fewer free codes fail the statement with INSUFFICIENT_STOCK, so nothing
-- of the placement is written.
CREATE OR REPLACE FUNCTION lock_free_codes(product_id integer, wanted integer) RETURNS integer[]
LANGUAGE plpgsql AS $$
DECLARE
  v_codes integer[];
BEGIN
  SELECT array_agg(f.id) INTO v_codes
    FROM (SELECT c.id FROM inventory_codes c
           WHERE c.product_id = lock_free_codes.product_id AND c.status = 'available'
           ORDER BY c.id LIMIT lock_free_codes.wanted FOR UPDATE SKIP LOCKED) f;
  IF coalesce(cardinality(v_codes), 0) <> lock_free_codes.wanted THEN
    PERFORM raise_api_error('INSUFFICIENT_STOCK');
  END IF;
  RETURN v_codes;
END;
$$;
