-- A supplier's offer of a pack added or taken away changes whether a live key in production can
-- order it (real_supplier_carries): the pack is dated and marked for the worker's next look at the
-- catalog. A cost or priority change leaves it alone.
CREATE OR REPLACE FUNCTION mark_offer_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mark_products_changed(CASE TG_OP
    WHEN 'INSERT' THEN ARRAY[NEW.product_id]
    WHEN 'DELETE' THEN ARRAY[OLD.product_id]
    ELSE ARRAY[OLD.product_id, NEW.product_id]
  END);
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER supplier_offers_mark_change AFTER INSERT OR DELETE OR UPDATE OF product_id, supplier_id
  ON "supplier_offers" FOR EACH ROW EXECUTE FUNCTION mark_offer_change();
