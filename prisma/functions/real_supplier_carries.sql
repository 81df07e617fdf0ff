-- Production never pretends (README: Production). A live top-up needs a real supplier: an offer
-- from a supplier account whose kind is real (supplier_kinds, kept from lib/suppliers/kinds/: not the
-- sandbox) and that is not paused. catalog_entry says so for the placement, GET /products reads the
-- same function for `orderable`, and the dashboard lists the live packs without one.
-- PL/pgSQL keeps the query's plan for the session: a SQL function holding a subquery is never
-- inlined, and is planned again on every statement that calls it.
CREATE OR REPLACE FUNCTION real_supplier_carries(product_id integer) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM supplier_offers f JOIN suppliers s ON s.id = f.supplier_id
                   JOIN supplier_kinds k ON k.kind = s.kind
                  WHERE f.product_id = real_supplier_carries.product_id
                    AND k.real AND s.paused_at IS NULL);
END;
$$;
