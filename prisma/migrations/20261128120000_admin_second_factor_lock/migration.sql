-- Wrong second-factor codes counted per admin, whatever their source, so that guesses from many
-- addresses lock the admin's second step (lib/admin-users/attempt-second-factor.ts). Kept in the
-- database: every web instance counts the same attempts.
CREATE TABLE "admin_second_factor_failures" (
  "id" SERIAL NOT NULL,
  "admin_user_id" INTEGER NOT NULL,
  "failed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "source" TEXT NOT NULL,
  "tripped" BOOLEAN NOT NULL DEFAULT false,
  CONSTRAINT "admin_second_factor_failures_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "admin_second_factor_failures_admin_user_id_failed_at_idx"
  ON "admin_second_factor_failures"("admin_user_id", "failed_at");
ALTER TABLE "admin_second_factor_failures" ADD CONSTRAINT "admin_second_factor_failures_admin_user_id_fkey"
  FOREIGN KEY ("admin_user_id") REFERENCES "admin_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
