import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { centsToUsd } from "../../money/cents-to-usd";
import type { ListedProductRecord } from "../catalog-record";

/** One pack as GET /products lists it (OpenAPI: Product). */
export interface ProductView {
  id: string;
  slug: string;
  gameName: string;
  serviceName: string;
  packName: string;
  kind: ListedProductRecord["kind"];
  price: number;
  currency: "USD";
  orderable: boolean;
  stock?: number;
}

/**
 * GET /products and /catalog: active packs of available lines; stock for code-delivered lines.
 * `orderable` is false when the line takes no orders, the pack has no codes in stock, or (with
 * `realSupplierRequired`: a live key in production) no real supplier carries the top-up. `price` is
 * the caller's: pack_price() at the caller's price tier (null: list prices), the price a placement
 * charges (catalog_entry uses the same function), so nothing here may be shared between callers.
 */
export async function listProducts(priceTierId: number | null, realSupplierRequired = false): Promise<ProductView[]> {
  const { rows } = await getPool().query<ListedProductRecord>(
    prepared(
      "list-products",
      sql`SELECT p.catalog_id AS "catalogId", p.pack_name AS "packName",
                 pack_price(p.price_cents, tp.price_cents, tp.percent_off_bp) AS "priceCents",
                 l.slug, l.game_name AS "gameName", l.product_name AS "productName", l.kind, l.orderable,
                 CASE WHEN l.kind IN ('gamekey', 'giftcard')
                      THEN (SELECT count(*)::int FROM inventory_codes c WHERE c.product_id = p.id AND c.status = 'available')
                 END AS stock,
                 l.kind = 'topup' AND real_supplier_carries(p.id) AS "realSupplier"
            FROM products p JOIN game_lines l ON l.id = p.line_id
            LEFT JOIN price_tier_prices tp ON tp.price_tier_id = ${priceTierId}::int AND tp.product_id = p.id
           WHERE p.active AND l.available
           ORDER BY l.sort_order, l.id, p.sort_order, p.id`,
    ),
  );
  return rows.map((row) => ({
    id: row.catalogId,
    slug: row.slug,
    gameName: row.gameName,
    serviceName: row.productName,
    packName: row.packName,
    kind: row.kind,
    price: centsToUsd(row.priceCents),
    currency: "USD" as const,
    // A code-delivered pack with no codes left would only answer INSUFFICIENT_STOCK, and a top-up
    // that needs a real supplier and has none INVALID_PRODUCT.
    orderable: row.orderable && row.stock !== 0 && !(realSupplierRequired && row.kind === "topup" && !row.realSupplier),
    ...(row.stock === null ? {} : { stock: row.stock }),
  }));
}
