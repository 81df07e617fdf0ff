-- Webhook fairness: the dispatcher claims per endpoint in rotation between accounts, within caps
-- on deliveries in flight per endpoint and per account; an endpoint that keeps failing is paused
-- with a growing backoff; replays and test events are counted against per-account quotas.

ALTER TABLE "webhook_endpoints"
  ADD COLUMN "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "paused_until" TIMESTAMPTZ(3);

-- The claim walks the endpoints with pending deliveries and takes each one's due deliveries from
-- this index; the index by status and time it replaces served the first-come claim and, left in
-- place, tempts the planner into scanning every pending delivery for each endpoint.
DROP INDEX "webhook_deliveries_status_next_attempt_at_idx";
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at")
  WHERE "status" = 'pending';
-- Deliveries in flight, counted per endpoint by every claim.
CREATE INDEX "webhook_deliveries_endpoint_claimed_idx" ON "webhook_deliveries" ("endpoint_id", "claimed_until")
  WHERE "claimed_by" IS NOT NULL;
-- Test events in the last hour, per account.
CREATE INDEX "webhook_events_test_created_idx" ON "webhook_events" ("account_id", "created_at")
  WHERE "type" = 'endpoint.test';

-- One row per replay: what it queued, for the hourly quota (kept when an endpoint is removed).
CREATE TABLE "webhook_replays" (
  "id" BIGSERIAL PRIMARY KEY,
  "account_id" INTEGER NOT NULL REFERENCES "accounts" ("id") ON DELETE CASCADE,
  "deliveries" INTEGER NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "webhook_replays_account_id_created_at_idx" ON "webhook_replays" ("account_id", "created_at");
