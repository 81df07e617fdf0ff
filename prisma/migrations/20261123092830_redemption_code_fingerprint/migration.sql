-- Redeem codes are no longer kept in any readable form: a keyed fingerprint (HMAC with APP_SECRET,
-- computed by the service) and the last 4 letters or digits replace the masked code, whose first
-- and last groups were the whole code for two-group codes. Redeems become idempotent per account
-- on their trxid (idempotency_key), and a pending attempt carries the time it was made.

-- AlterTable
ALTER TABLE "redemptions" ADD COLUMN "code_fingerprint" TEXT,
ADD COLUMN "code_last4" TEXT,
ADD COLUMN "idempotency_key" TEXT,
ADD COLUMN "attempted_at" TIMESTAMPTZ(3);

-- What existing rows allow: the masked form kept the last group, so its last 4 characters survive
-- when none of them was masked. The fingerprint needs the whole code and the secret: old rows keep
-- none, and no idempotency key either (a retry of an old trxid is a fresh attempt).
UPDATE "redemptions"
   SET "code_last4" = right(replace("code_mask", '-', ''), 4)
 WHERE "code_mask" IS NOT NULL
   AND right(replace("code_mask", '-', ''), 4) ~ '^[A-Za-z0-9]{4}$';

ALTER TABLE "redemptions" DROP COLUMN "code_mask";

-- CreateIndex
CREATE UNIQUE INDEX "redemptions_account_id_idempotency_key_key" ON "redemptions"("account_id", "idempotency_key");
