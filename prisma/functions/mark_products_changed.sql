-- Dates packs changed by something outside their own row (their line's switches, a tier's price for
-- them, their stock crossing zero) and marks them for the worker's next look at the catalog.
CREATE OR REPLACE FUNCTION mark_products_changed(product_ids integer[]) RETURNS void LANGUAGE sql AS $$
  UPDATE products SET changed_at = now() WHERE id = ANY (mark_products_changed.product_ids);
  INSERT INTO catalog_changes AS c (product_id)
  SELECT DISTINCT unnest(mark_products_changed.product_ids)
  ON CONFLICT (product_id) DO UPDATE SET mark = c.mark + 1;
$$;
