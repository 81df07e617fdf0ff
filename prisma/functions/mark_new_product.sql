-- A new pack is a change for the worker's next look at the catalog: watching accounts are told of it
-- once it is listed. (After the insert: the mark refers to the pack's row.)
CREATE OR REPLACE FUNCTION mark_new_product() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_changes AS c (product_id) VALUES (NEW.id)
  ON CONFLICT (product_id) DO UPDATE SET mark = c.mark + 1;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER products_mark_new AFTER INSERT ON "products"
  FOR EACH ROW EXECUTE FUNCTION mark_new_product();
