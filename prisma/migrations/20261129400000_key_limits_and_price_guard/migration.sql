-- A key's daily spending limit (the bot's /keylimit) and what the key charged on its last day of
-- orders, which place_order checks and counts under the key's row lock; and the price guard
-- (maxPrice), a new place_order parameter: the old function goes here, the file creates the new one
-- (docs/data-layer.md: Changing a SQL function). raise_api_error gains the error's fields.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE "api_keys" ADD COLUMN "daily_limit_cents" BIGINT,
                       ADD COLUMN "spent_day" DATE,
                       ADD COLUMN "spent_today_cents" BIGINT NOT NULL DEFAULT 0;
-- New columns, all null: nothing to scan.
-- squawk-ignore constraint-missing-not-valid
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_daily_limit_positive" CHECK ("daily_limit_cents" > 0);

DROP FUNCTION IF EXISTS place_order(integer, text, integer, integer, text, text, text, text, integer, text, text, text,
                                    text, text, text, text);
DROP FUNCTION IF EXISTS raise_api_error(text);
