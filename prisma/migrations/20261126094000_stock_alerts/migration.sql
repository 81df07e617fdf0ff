-- When admins were told that a pack's free codes fell below its stock_alert_below; cleared when the
-- stock is back at or above it, so each crossing is told once.
ALTER TABLE "products" ADD COLUMN "stock_alert_sent_at" TIMESTAMPTZ(3);
