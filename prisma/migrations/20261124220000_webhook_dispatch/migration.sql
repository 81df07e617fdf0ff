-- Webhook deliveries are claimed straight from the outbox (the worker's dispatcher), instead of one
-- graphile-worker job per delivery written by the settling transaction: a claim names the
-- dispatcher that holds it and until when, so a dead dispatcher's claims are taken over.

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN "claimed_by" TEXT,
ADD COLUMN "claimed_until" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");
