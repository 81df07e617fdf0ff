-- An order names its supplier without a foreign key. The key's check takes FOR KEY SHARE on the
-- supplier's row whenever fulfilment routes an order, so every worker routing to one supplier
-- queued on that row (a multixact per lock on one hot row).
-- Suppliers are paused, never deleted (the trigger suppliers_never_deleted, prisma/functions/
-- refuse_supplier_delete.sql), so an order's supplier id always resolves.
ALTER TABLE "orders" DROP CONSTRAINT "orders_supplier_id_fkey";
