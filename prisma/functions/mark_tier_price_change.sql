-- A tier's price for a pack set, changed or dropped (a removed tier drops them all) changes the pack
-- for the tier's accounts: the pack is dated and marked; the worker tells only the accounts whose
-- price moved.
CREATE OR REPLACE FUNCTION mark_tier_price_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND (NEW.price_cents, NEW.percent_off_bp) IS NOT DISTINCT FROM (OLD.price_cents, OLD.percent_off_bp) THEN
    RETURN NULL;
  END IF;
  PERFORM mark_products_changed(ARRAY[CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END]);
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER price_tier_prices_mark_change AFTER INSERT OR UPDATE OR DELETE ON "price_tier_prices"
  FOR EACH ROW EXECUTE FUNCTION mark_tier_price_change();
