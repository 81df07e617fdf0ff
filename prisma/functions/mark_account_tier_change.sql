-- An account moved to another price tier (or to list prices, its tier removed) sees every price
-- change at once: the account is marked for the worker's next look at the catalog. Only updates
-- naming the column fire it: a wallet move does not.
CREATE OR REPLACE FUNCTION mark_account_tier_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO catalog_account_changes AS c (account_id) VALUES (NEW.id)
  ON CONFLICT (account_id) DO UPDATE SET mark = c.mark + 1;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER accounts_mark_tier_change AFTER UPDATE OF price_tier_id ON "accounts"
  FOR EACH ROW WHEN (OLD.price_tier_id IS DISTINCT FROM NEW.price_tier_id)
  EXECUTE FUNCTION mark_account_tier_change();
