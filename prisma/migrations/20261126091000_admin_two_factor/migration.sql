-- Two-factor sign-in for dashboard admins (TOTP). The secret is sealed at rest like other secrets
-- (AES-256-GCM with CODES_ENCRYPTION_KEY); a set-up keeps its secret apart until a code confirms it.
-- The last accepted time step makes a code usable once: a replay inside its window is refused.
ALTER TABLE "admin_users" ADD COLUMN "totp_secret" TEXT;
ALTER TABLE "admin_users" ADD COLUMN "totp_pending_secret" TEXT;
ALTER TABLE "admin_users" ADD COLUMN "totp_enabled_at" TIMESTAMPTZ(3);
ALTER TABLE "admin_users" ADD COLUMN "totp_last_step" INTEGER;

-- Recovery codes: shown once when two-factor is turned on, stored as SHA-256 digests (each code is
-- 80 random bits, so a digest cannot be guessed back), each usable once.
CREATE TABLE "admin_recovery_codes" (
  "id" SERIAL NOT NULL,
  "admin_user_id" INTEGER NOT NULL,
  "code_hash" TEXT NOT NULL,
  "used_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "admin_recovery_codes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "admin_recovery_codes_code_hash_key" ON "admin_recovery_codes"("code_hash");
CREATE INDEX "admin_recovery_codes_admin_user_id_idx" ON "admin_recovery_codes"("admin_user_id");
ALTER TABLE "admin_recovery_codes" ADD CONSTRAINT "admin_recovery_codes_admin_user_id_fkey"
  FOREIGN KEY ("admin_user_id") REFERENCES "admin_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
