-- Supplier kinds as rows instead of a CHECK: lib/suppliers/kinds/ declares them, and the migrate
-- command keeps this table in step with it (lib/suppliers/sql/sync-supplier-kinds.ts), so a kind is
-- added in its module alone. `real` is what production asks (real_supplier_carries): may the kind
-- serve live orders. The two kinds of today are written here so the foreign key holds at once.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE "supplier_kinds" (
  "kind" TEXT NOT NULL,
  "real" BOOLEAN NOT NULL,
  CONSTRAINT "supplier_kinds_pkey" PRIMARY KEY ("kind")
);
INSERT INTO "supplier_kinds" ("kind", "real") VALUES ('sandbox', false), ('h2h', true);

ALTER TABLE "suppliers" DROP CONSTRAINT "suppliers_kind_check";
-- suppliers holds a handful of rows: the scan and the lock last no time.
-- squawk-ignore constraint-missing-not-valid, adding-foreign-key-constraint
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_kind_fkey"
  FOREIGN KEY ("kind") REFERENCES "supplier_kinds"("kind") ON DELETE RESTRICT ON UPDATE CASCADE;
