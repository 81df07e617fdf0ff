-- Refund requests for completed orders: a row per request with its state, decided once by an admin;
-- the window a line allows for them; and the state of a refunded code, which is never sold again.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TYPE "CodeStatus" ADD VALUE IF NOT EXISTS 'revoked' AFTER 'delivered';

CREATE TYPE "RefundRequestStatus" AS ENUM ('requested', 'refunded', 'declined');

ALTER TABLE "game_lines" ADD COLUMN "refund_window_hours" INTEGER;

CREATE TABLE "refund_requests" (
  "id" SERIAL NOT NULL,
  "order_id" INTEGER NOT NULL,
  "account_id" INTEGER NOT NULL,
  "reason" TEXT NOT NULL,
  "status" "RefundRequestStatus" NOT NULL DEFAULT 'requested',
  "requested_by" TEXT NOT NULL,
  "refund_cents" BIGINT,
  "decision_note" TEXT,
  "restocked" BOOLEAN NOT NULL DEFAULT false,
  "decided_by" TEXT,
  "decided_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "refund_requests_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "refund_requests_refund_positive" CHECK ("refund_cents" > 0),
  CONSTRAINT "refund_requests_decided" CHECK (("status" = 'requested') = ("decided_at" IS NULL))
);
CREATE UNIQUE INDEX "refund_requests_order_id_key" ON "refund_requests"("order_id");
CREATE INDEX "refund_requests_status_created_at_idx" ON "refund_requests"("status", "created_at");
CREATE INDEX "refund_requests_account_id_idx" ON "refund_requests"("account_id");
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_order_id_fkey"
  FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "refund_requests" ADD CONSTRAINT "refund_requests_account_id_fkey"
  FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
