-- A supplier paused or resumed (or of another kind) changes whether a live key in production can
-- order the top-ups it carries (real_supplier_carries): those packs are dated and marked for the
-- worker's next look at the catalog. Its failure counters and circuit leave them alone.
CREATE OR REPLACE FUNCTION mark_supplier_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mark_products_changed(ARRAY(SELECT f.product_id FROM supplier_offers f WHERE f.supplier_id = NEW.id));
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER suppliers_mark_change AFTER UPDATE ON "suppliers"
  FOR EACH ROW WHEN ((OLD.paused_at IS NULL, OLD.kind) IS DISTINCT FROM (NEW.paused_at IS NULL, NEW.kind))
  EXECUTE FUNCTION mark_supplier_change();
