-- Suppliers are paused, never deleted, so an order's supplier id always resolves.
CREATE OR REPLACE FUNCTION refuse_supplier_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'supplier % is named by orders and their costs: pause it instead of deleting it', OLD.name
    USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE OR REPLACE TRIGGER suppliers_never_deleted BEFORE DELETE ON "suppliers"
  FOR EACH ROW EXECUTE FUNCTION refuse_supplier_delete();
