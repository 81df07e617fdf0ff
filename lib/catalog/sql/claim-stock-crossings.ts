import { getPool } from "../../db/pool";
import { sql } from "../../db/run-sql";

/** A pack whose free codes fell below its stock_alert_below and whose admins are not told yet. */
export interface StockCrossing {
  catalogId: string;
  packName: string;
  available: number;
  threshold: number;
}

/**
 * One statement: the packs that crossed below their threshold since the last look, each marked as
 * told, and the packs back at or above it re-armed. Two workers looking at once cannot both claim
 * a crossing: the second's update finds it marked and skips it.
 */
export async function claimStockCrossings(): Promise<StockCrossing[]> {
  const { rows } = await getPool().query<StockCrossing>(
    sql`WITH stock AS (
          SELECT p.id, p.stock_alert_below AS threshold,
                 (SELECT count(*) FROM inventory_codes c WHERE c.product_id = p.id AND c.status = 'available')::int AS available
            FROM products p
            JOIN game_lines l ON l.id = p.line_id AND l.kind IN ('gamekey', 'giftcard')
           WHERE p.stock_alert_below IS NOT NULL OR p.stock_alert_sent_at IS NOT NULL
        ), rearmed AS (
          UPDATE products p SET stock_alert_sent_at = NULL
            FROM stock
           WHERE p.id = stock.id AND p.stock_alert_sent_at IS NOT NULL
             AND (stock.threshold IS NULL OR stock.available >= stock.threshold)
        )
        UPDATE products p SET stock_alert_sent_at = now()
          FROM stock
         WHERE p.id = stock.id AND p.stock_alert_sent_at IS NULL AND stock.available < stock.threshold
        RETURNING p.catalog_id AS "catalogId", p.pack_name AS "packName", stock.available, stock.threshold`,
  );
  return rows;
}
