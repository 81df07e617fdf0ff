-- Telegram admins are dashboard admins: an admin links their Telegram account with a one-time code
-- from the dashboard, and the bot's admin commands then follow that admin's role.
CREATE TABLE "admin_telegram_links" (
  "admin_user_id" INTEGER NOT NULL,
  "telegram_id" BIGINT NOT NULL,
  "linked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "admin_telegram_links_pkey" PRIMARY KEY ("admin_user_id")
);
CREATE UNIQUE INDEX "admin_telegram_links_telegram_id_key" ON "admin_telegram_links"("telegram_id");
ALTER TABLE "admin_telegram_links" ADD CONSTRAINT "admin_telegram_links_admin_user_id_fkey"
  FOREIGN KEY ("admin_user_id") REFERENCES "admin_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Link codes: stored as SHA-256 digests (each code is 50 random bits and lives 10 minutes), each
-- usable once.
CREATE TABLE "admin_telegram_link_codes" (
  "id" SERIAL NOT NULL,
  "admin_user_id" INTEGER NOT NULL,
  "code_hash" TEXT NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "used_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "admin_telegram_link_codes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "admin_telegram_link_codes_code_hash_key" ON "admin_telegram_link_codes"("code_hash");
CREATE INDEX "admin_telegram_link_codes_admin_user_id_idx" ON "admin_telegram_link_codes"("admin_user_id");
ALTER TABLE "admin_telegram_link_codes" ADD CONSTRAINT "admin_telegram_link_codes_admin_user_id_fkey"
  FOREIGN KEY ("admin_user_id") REFERENCES "admin_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Four eyes on large credits: who asked, whether a second admin must approve, and who decided.
ALTER TABLE "admin_action_requests" ADD COLUMN "requested_by_admin_id" INTEGER;
ALTER TABLE "admin_action_requests" ADD COLUMN "needs_approval" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "admin_action_requests" ADD COLUMN "resolved_by" TEXT;
