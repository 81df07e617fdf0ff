-- The invoice echoes userId, zoneId and serverId exactly as the client sent them, while the
-- canonical forms (trimmed; serverId resolved from a label such as "NA" to "america") stay in
-- user_id, zone_id and server_id for the supplier. Orders placed before this migration only have
-- the canonical form, which becomes their echo so their invoices do not change.

-- AlterTable
ALTER TABLE "orders" ADD COLUMN "sent_user_id" TEXT,
ADD COLUMN "sent_zone_id" TEXT,
ADD COLUMN "sent_server_id" TEXT;

UPDATE "orders" SET "sent_user_id" = "user_id", "sent_zone_id" = "zone_id", "sent_server_id" = "server_id"
 WHERE "user_id" IS NOT NULL OR "zone_id" IS NOT NULL OR "server_id" IS NOT NULL;

-- GET /history lists the calling key's orders, newest first.
-- CreateIndex
CREATE INDEX "orders_api_key_id_id_idx" ON "orders"("api_key_id", "id");
