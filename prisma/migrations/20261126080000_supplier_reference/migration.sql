-- An order names its supplier without a foreign key. The key's check takes FOR KEY SHARE on the
-- supplier's row whenever fulfilment routes an order, so every worker routing to one supplier
-- queued on that row (a multixact per lock on one hot row).
-- Suppliers are paused, never deleted, so an order's supplier id always resolves.
ALTER TABLE "orders" DROP CONSTRAINT "orders_supplier_id_fkey";

CREATE FUNCTION refuse_supplier_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'supplier % is named by orders and their costs: pause it instead of deleting it', OLD.name
    USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER suppliers_never_deleted BEFORE DELETE ON "suppliers"
  FOR EACH ROW EXECUTE FUNCTION refuse_supplier_delete();
