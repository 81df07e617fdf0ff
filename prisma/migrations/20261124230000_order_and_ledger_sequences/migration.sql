-- Gapless per-key order numbers and per-account ledger numbers, kept by counters that the writing
-- transaction bumps: GET /history and GET /ledger read an exact total from one row and page by
-- keyset on the number, so a deep page costs what the first does (no count(*), no OFFSET).
-- The counters are bumped by the statement that writes the row (lib/orders/place-order.ts,
-- lib/wallet/post-ledger-entry.ts), so a rolled-back placement rolls its number back too.

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN "order_count" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "accounts" ADD COLUMN "ledger_count" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "orders" ADD COLUMN "key_seq" INTEGER;
ALTER TABLE "ledger_entries" ADD COLUMN "account_seq" INTEGER;

-- Backfill: existing rows are numbered in id order, which is the order the lists showed them in.
UPDATE "orders" o SET "key_seq" = n.seq
  FROM (SELECT id, row_number() OVER (PARTITION BY api_key_id ORDER BY id)::int AS seq FROM "orders") n
 WHERE o.id = n.id;
UPDATE "ledger_entries" l SET "account_seq" = n.seq
  FROM (SELECT id, row_number() OVER (PARTITION BY account_id ORDER BY id)::int AS seq FROM "ledger_entries") n
 WHERE l.id = n.id;
UPDATE "api_keys" k SET "order_count" = c.n
  FROM (SELECT api_key_id, count(*)::int AS n FROM "orders" WHERE api_key_id IS NOT NULL GROUP BY api_key_id) c
 WHERE k.id = c.api_key_id;
UPDATE "accounts" a SET "ledger_count" = c.n
  FROM (SELECT account_id, count(*)::int AS n FROM "ledger_entries" GROUP BY account_id) c
 WHERE a.id = c.account_id;

ALTER TABLE "orders" ALTER COLUMN "key_seq" SET NOT NULL;
ALTER TABLE "ledger_entries" ALTER COLUMN "account_seq" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "orders_api_key_id_key_seq_key" ON "orders"("api_key_id", "key_seq");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_account_id_account_seq_key" ON "ledger_entries"("account_id", "account_seq");

-- GET /history now reads the key's orders by (api_key_id, key_seq): the (api_key_id, id) index
-- served only it, and would be one more index for every placement to write.
-- DropIndex
DROP INDEX "orders_api_key_id_id_idx";
