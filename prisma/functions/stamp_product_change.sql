-- A change of what clients see of a pack (its name, list price, active switch) dates the pack
-- (products.changed_at: the API's updatedAt) and marks it for the worker's next look at the catalog
-- (lib/catalog/send-catalog-changes.ts: product.updated for each watching account that sees it change).
-- Other columns (sort order, SKU, stock alert, the edit forms' updated_at) leave both alone.
CREATE OR REPLACE FUNCTION stamp_product_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.pack_name, NEW.price_cents, NEW.active) IS DISTINCT FROM (OLD.pack_name, OLD.price_cents, OLD.active) THEN
    NEW.changed_at := now();
    INSERT INTO catalog_changes AS c (product_id) VALUES (NEW.id)
    ON CONFLICT (product_id) DO UPDATE SET mark = c.mark + 1;
  END IF;
  RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER products_stamp_change BEFORE UPDATE ON "products"
  FOR EACH ROW EXECUTE FUNCTION stamp_product_change();
