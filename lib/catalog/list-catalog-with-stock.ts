import { getPool } from "../db/pool";

export interface CatalogProductWithStock {
  id: number;
  catalogId: string;
  packName: string;
  priceCents: number;
  active: boolean;
  supplierSku: string | null;
  /** Code counts for game-key and gift-card products; null for top-ups (the supplier delivers). */
  stock: { available: number; reserved: number; delivered: number } | null;
}

export interface CatalogLineWithStock {
  id: number;
  slug: string;
  code: string;
  gameName: string;
  productName: string;
  kind: "topup" | "gamekey" | "giftcard";
  /** Listed by GET /services. */
  available: boolean;
  /** Takes new orders; false answers GAME DISABLED. */
  orderable: boolean;
  supplier: string;
  products: CatalogProductWithStock[];
}

export function isStockKind(kind: CatalogLineWithStock["kind"]): boolean {
  return kind === "gamekey" || kind === "giftcard";
}

/** Every line and product (active or not) with code stock per product, in catalog order. */
export async function listCatalogWithStock(): Promise<CatalogLineWithStock[]> {
  const pool = getPool();
  const [lines, products] = await Promise.all([
    pool.query<Omit<CatalogLineWithStock, "products">>(
      `SELECT id, slug, code, game_name AS "gameName", product_name AS "productName", kind, available, orderable, supplier
         FROM game_lines ORDER BY sort_order, id`,
    ),
    // One grouped scan of inventory_codes (indexed by product and status) instead of a count per product.
    pool.query<Omit<CatalogProductWithStock, "stock"> & { lineId: number; available: number; reserved: number; delivered: number }>(
      `SELECT p.id, p.line_id AS "lineId", p.catalog_id AS "catalogId", p.pack_name AS "packName", p.price_cents AS "priceCents",
              p.active, p.supplier_sku AS "supplierSku",
              COALESCE(s.available, 0) AS available, COALESCE(s.reserved, 0) AS reserved, COALESCE(s.delivered, 0) AS delivered
         FROM products p
         LEFT JOIN (SELECT product_id,
                           count(*) FILTER (WHERE status = 'available')::int AS available,
                           count(*) FILTER (WHERE status = 'reserved')::int AS reserved,
                           count(*) FILTER (WHERE status = 'delivered')::int AS delivered
                      FROM inventory_codes GROUP BY product_id) s ON s.product_id = p.id
        ORDER BY p.sort_order, p.id`,
    ),
  ]);
  return lines.rows.map((line) => ({
    ...line,
    products: products.rows
      .filter((product) => product.lineId === line.id)
      .map(({ lineId: _, available, reserved, delivered, ...product }) => ({
        ...product,
        stock: isStockKind(line.kind) ? { available, reserved, delivered } : null,
      })),
  }));
}
