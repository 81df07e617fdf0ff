-- A ledger entry's created_at never goes back within its account: entry n+1 (account_seq) is never
-- dated before entry n. The posting statement (lib/wallet/post-ledger-entry.ts, ledgerMoveCtes)
-- dates an entry greatest(now(), the account's ledger_last_at) and moves ledger_last_at in the
-- same UPDATE that takes the account's row lock, so the rule holds by construction: now() is the
-- transaction's start, and a posting that started before another but reached the account's row
-- after it takes that one's time (the same millisecond, or a few) instead of going before it.
--
-- What it buys: "the balance at T" is the balance_after of the last entry dated before T, one
-- probe of the index below, so GET /ledger?format=csv&from=&to= no longer sums an account's whole
-- ledger for its opening and closing balances (lib/wallet/stream-ledger-statement.ts).

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "ledger_last_at" TIMESTAMPTZ(3);

-- Entries posted before this migration were dated by their transaction's start alone, so a rare
-- pair that raced for an account's row can be out of order by the time one waited for the other's
-- lock. Each such entry takes the latest date before it in its account (a move of milliseconds);
-- amounts, balances and numbers are untouched.
UPDATE "ledger_entries" l SET "created_at" = t.running_max
  FROM (SELECT id, max("created_at") OVER (PARTITION BY "account_id" ORDER BY "account_seq") AS running_max FROM "ledger_entries") t
 WHERE l.id = t.id AND l."created_at" < t.running_max;

UPDATE "accounts" a SET "ledger_last_at" = m.last_at
  FROM (SELECT "account_id", max("created_at") AS last_at FROM "ledger_entries" GROUP BY "account_id") m
 WHERE a.id = m."account_id";

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_account_seq_idx" ON "ledger_entries"("account_id", "created_at", "account_seq");
