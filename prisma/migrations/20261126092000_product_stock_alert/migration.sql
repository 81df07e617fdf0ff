-- A pack's stock rule: warn when its available codes fall below this many (empty: no warning).
ALTER TABLE "products" ADD COLUMN "stock_alert_below" INTEGER;
ALTER TABLE "products" ADD CONSTRAINT "products_stock_alert_below_check" CHECK ("stock_alert_below" >= 0);
