-- Dates packs changed by something outside their own row (their line's switches, a tier's price for
-- them, a supplier's offer of them, their stock crossing zero) and marks them for the worker's next
-- look at the catalog. A pack being deleted (none is, but a cascade would come here) is skipped.
CREATE OR REPLACE FUNCTION mark_products_changed(product_ids integer[]) RETURNS void LANGUAGE sql AS $$
  WITH dated AS (
    UPDATE products SET changed_at = now() WHERE id = ANY (mark_products_changed.product_ids) RETURNING id
  )
  INSERT INTO catalog_changes AS c (product_id) SELECT id FROM dated
  ON CONFLICT (product_id) DO UPDATE SET mark = c.mark + 1;
$$;
