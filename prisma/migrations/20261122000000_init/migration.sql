-- CreateEnum
CREATE TYPE "LineKind" AS ENUM ('topup', 'gamekey', 'giftcard');

-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('pending', 'processing', 'completed', 'cancelled');

-- CreateEnum
CREATE TYPE "LedgerKind" AS ENUM ('credit', 'debit', 'refund', 'adjustment');

-- CreateEnum
CREATE TYPE "CodeStatus" AS ENUM ('available', 'reserved', 'delivered');

-- CreateEnum
CREATE TYPE "AdminRequestStatus" AS ENUM ('pending', 'confirmed', 'cancelled', 'expired');

-- CreateTable
CREATE TABLE "accounts" (
    "id" SERIAL NOT NULL,
    "telegram_id" BIGINT,
    "telegram_username" TEXT,
    "display_name" TEXT,
    "api_enabled" BOOLEAN NOT NULL DEFAULT false,
    "api_disabled_by_admin" BOOLEAN NOT NULL DEFAULT false,
    "banned_at" TIMESTAMPTZ(3),
    "ban_reason" TEXT,
    "restricted_until" TIMESTAMPTZ(3),
    "restrict_reason" TEXT,
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "balance_cents" BIGINT NOT NULL DEFAULT 0,
    "total_credited_cents" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "name" TEXT,
    "require_ip_allowlist" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ip_allow_entries" (
    "id" SERIAL NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "cidr" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ip_allow_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" "LedgerKind" NOT NULL,
    "amount_cents" BIGINT NOT NULL,
    "balance_after_cents" BIGINT NOT NULL,
    "order_id" INTEGER,
    "actor" TEXT NOT NULL,
    "reason" TEXT,
    "audit_log_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "game_lines" (
    "id" SERIAL NOT NULL,
    "slug" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "game_name" TEXT NOT NULL,
    "product_name" TEXT NOT NULL,
    "kind" "LineKind" NOT NULL,
    "required_fields" JSONB NOT NULL,
    "server_id_options" JSONB,
    "available" BOOLEAN NOT NULL DEFAULT true,
    "orderable" BOOLEAN NOT NULL DEFAULT true,
    "supplier" TEXT NOT NULL DEFAULT 'sandbox',
    "sort_order" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "game_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "products" (
    "id" SERIAL NOT NULL,
    "catalog_id" TEXT NOT NULL,
    "line_id" INTEGER NOT NULL,
    "pack_name" TEXT NOT NULL,
    "price_cents" BIGINT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "supplier_sku" TEXT,
    "sort_order" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inventory_codes" (
    "id" SERIAL NOT NULL,
    "product_id" INTEGER NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "status" "CodeStatus" NOT NULL DEFAULT 'available',
    "order_id" INTEGER,
    "reserved_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inventory_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" SERIAL NOT NULL,
    "public_id" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "api_key_id" INTEGER,
    "trxid" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "request_fingerprint" TEXT NOT NULL,
    "product_id" INTEGER,
    "catalog_id" TEXT NOT NULL,
    "line_slug" TEXT NOT NULL,
    "line_kind" "LineKind" NOT NULL,
    "pack_name" TEXT NOT NULL,
    "unit_price_cents" BIGINT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "amount_cents" BIGINT NOT NULL,
    "user_id" TEXT,
    "zone_id" TEXT,
    "server_id" TEXT,
    "order_created" BOOLEAN NOT NULL DEFAULT true,
    "status" "OrderStatus" NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "refunded" BOOLEAN NOT NULL DEFAULT false,
    "needs_admin" BOOLEAN NOT NULL DEFAULT false,
    "supplier" TEXT,
    "supplier_ref" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_events" (
    "id" SERIAL NOT NULL,
    "order_id" INTEGER NOT NULL,
    "from_status" "OrderStatus",
    "to_status" "OrderStatus" NOT NULL,
    "reason" TEXT NOT NULL,
    "data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "redemptions" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "api_key_id" INTEGER,
    "kind" TEXT NOT NULL,
    "player_id" TEXT NOT NULL,
    "zone_id" TEXT,
    "code_mask" TEXT,
    "trxid" TEXT,
    "outcome" TEXT NOT NULL,
    "nickname" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "redemptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settings" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_by" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "admin_users" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMPTZ(3),

    CONSTRAINT "admin_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" SERIAL NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT,
    "target_id" TEXT,
    "details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "admin_action_requests" (
    "id" SERIAL NOT NULL,
    "token" TEXT NOT NULL,
    "admin_telegram_id" BIGINT NOT NULL,
    "action" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "amount_cents" BIGINT NOT NULL,
    "note" TEXT,
    "status" "AdminRequestStatus" NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "admin_action_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processed_telegram_updates" (
    "update_id" BIGINT NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processed_telegram_updates_pkey" PRIMARY KEY ("update_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_telegram_id_key" ON "accounts"("telegram_id");

-- CreateIndex
CREATE INDEX "accounts_telegram_username_idx" ON "accounts"("telegram_username");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_account_id_prefix_key" ON "api_keys"("account_id", "prefix");

-- CreateIndex
CREATE UNIQUE INDEX "ip_allow_entries_api_key_id_cidr_key" ON "ip_allow_entries"("api_key_id", "cidr");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_id_idx" ON "ledger_entries"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_order_id_kind_key" ON "ledger_entries"("order_id", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "game_lines_slug_key" ON "game_lines"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "game_lines_code_key" ON "game_lines"("code");

-- CreateIndex
CREATE UNIQUE INDEX "products_catalog_id_key" ON "products"("catalog_id");

-- CreateIndex
CREATE INDEX "products_line_id_idx" ON "products"("line_id");

-- CreateIndex
CREATE UNIQUE INDEX "inventory_codes_code_hash_key" ON "inventory_codes"("code_hash");

-- CreateIndex
CREATE INDEX "inventory_codes_product_id_status_idx" ON "inventory_codes"("product_id", "status");

-- CreateIndex
CREATE INDEX "inventory_codes_order_id_idx" ON "inventory_codes"("order_id");

-- CreateIndex
CREATE UNIQUE INDEX "orders_public_id_key" ON "orders"("public_id");

-- CreateIndex
CREATE INDEX "orders_account_id_trxid_idx" ON "orders"("account_id", "trxid");

-- CreateIndex
CREATE INDEX "orders_account_id_id_idx" ON "orders"("account_id", "id");

-- CreateIndex
CREATE INDEX "orders_status_needs_admin_idx" ON "orders"("status", "needs_admin");

-- CreateIndex
CREATE INDEX "orders_created_at_idx" ON "orders"("created_at");

-- CreateIndex
CREATE INDEX "orders_user_id_idx" ON "orders"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "orders_account_id_idempotency_key_key" ON "orders"("account_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "order_events_order_id_id_idx" ON "order_events"("order_id", "id");

-- CreateIndex
CREATE INDEX "redemptions_account_id_id_idx" ON "redemptions"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "admin_users_email_key" ON "admin_users"("email");

-- CreateIndex
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");

-- CreateIndex
CREATE INDEX "audit_log_target_type_target_id_idx" ON "audit_log"("target_type", "target_id");

-- CreateIndex
CREATE UNIQUE INDEX "admin_action_requests_token_key" ON "admin_action_requests"("token");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ip_allow_entries" ADD CONSTRAINT "ip_allow_entries_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_audit_log_id_fkey" FOREIGN KEY ("audit_log_id") REFERENCES "audit_log"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "products" ADD CONSTRAINT "products_line_id_fkey" FOREIGN KEY ("line_id") REFERENCES "game_lines"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inventory_codes" ADD CONSTRAINT "inventory_codes_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inventory_codes" ADD CONSTRAINT "inventory_codes_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redemptions" ADD CONSTRAINT "redemptions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redemptions" ADD CONSTRAINT "redemptions_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Money rules that Prisma's schema language cannot express. They make a negative balance or a
-- ledger entry of the wrong sign impossible whatever code runs against the database.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_balance_non_negative" CHECK ("balance_cents" >= 0);
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_total_credited_non_negative" CHECK ("total_credited_cents" >= 0);
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_balance_after_non_negative" CHECK ("balance_after_cents" >= 0);
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_amount_sign" CHECK (
  ("kind" IN ('credit', 'refund') AND "amount_cents" > 0)
  OR ("kind" = 'debit' AND "amount_cents" < 0)
  OR ("kind" = 'adjustment' AND "amount_cents" <> 0)
);
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_order_kinds" CHECK (
  "order_id" IS NULL OR "kind" IN ('debit', 'refund')
);
ALTER TABLE "products" ADD CONSTRAINT "products_price_positive" CHECK ("price_cents" > 0);
ALTER TABLE "orders" ADD CONSTRAINT "orders_quantity_positive" CHECK ("quantity" >= 1);
ALTER TABLE "orders" ADD CONSTRAINT "orders_amount_non_negative" CHECK ("amount_cents" >= 0);
ALTER TABLE "game_lines" ADD CONSTRAINT "game_lines_code_two_letters" CHECK ("code" ~ '^[A-Z]{2}$');
ALTER TABLE "inventory_codes" ADD CONSTRAINT "inventory_codes_holder_matches_status" CHECK (
  ("status" = 'available' AND "order_id" IS NULL) OR ("status" <> 'available' AND "order_id" IS NOT NULL)
);
