SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

-- Deposit requests: a holder's /deposit in the bot asks to fund the wallet by a transfer of a unique
-- amount (the requested amount plus a few cents) within a time; an admin's approval credits it once.
CREATE TYPE "DepositStatus" AS ENUM ('pending', 'approved', 'rejected', 'expired');

CREATE TABLE "deposit_requests" (
  "id" SERIAL NOT NULL,
  "reference" TEXT NOT NULL,
  "account_id" INTEGER NOT NULL,
  "requested_cents" BIGINT NOT NULL,
  "amount_cents" BIGINT NOT NULL,
  "status" "DepositStatus" NOT NULL DEFAULT 'pending',
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "proof_kind" TEXT,
  "proof_text" TEXT,
  "proof_file_name" TEXT,
  "proof_mime" TEXT,
  "proof_bytes" BYTEA,
  "proof_at" TIMESTAMPTZ(3),
  "first_approved_by" TEXT,
  "first_approver_admin_id" INTEGER,
  "resolved_at" TIMESTAMPTZ(3),
  "resolved_by" TEXT,
  "reject_reason" TEXT,
  "ledger_entry_id" INTEGER,
  "statement_row" TEXT,
  CONSTRAINT "deposit_requests_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "deposit_requests_requested_positive" CHECK ("requested_cents" > 0),
  CONSTRAINT "deposit_requests_amount_covers_request" CHECK ("amount_cents" >= "requested_cents"),
  CONSTRAINT "deposit_requests_proof_kind" CHECK ("proof_kind" IN ('photo', 'document', 'text'))
);
CREATE UNIQUE INDEX "deposit_requests_reference_key" ON "deposit_requests"("reference");
-- The unique amount: no two open requests expect the same transfer, so a statement row names one.
CREATE UNIQUE INDEX "deposit_requests_open_amount_key" ON "deposit_requests"("amount_cents") WHERE "status" = 'pending';
CREATE INDEX "deposit_requests_account_id_id_idx" ON "deposit_requests"("account_id", "id");
CREATE INDEX "deposit_requests_status_id_idx" ON "deposit_requests"("status", "id");
ALTER TABLE "deposit_requests" ADD CONSTRAINT "deposit_requests_account_id_fkey"
  FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "deposit_requests" ADD CONSTRAINT "deposit_requests_ledger_entry_id_fkey"
  FOREIGN KEY ("ledger_entry_id") REFERENCES "ledger_entries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
