import { getPool } from "../db/pool";
import { centsToUsd } from "../money/cents-to-usd";
import type { LineKind } from "../generated/prisma/enums";

export interface ProductRow {
  id: string;
  slug: string;
  gameName: string;
  serviceName: string;
  packName: string;
  kind: LineKind;
  price: number;
  currency: "USD";
  orderable: boolean;
  stock?: number;
}

/** GET /products and /catalog: active packs of available lines; stock for code-delivered lines. */
export async function listProducts(): Promise<ProductRow[]> {
  const { rows } = await getPool().query({
    name: "list-products",
    text: `SELECT p.catalog_id, l.slug, l.game_name, l.product_name, p.pack_name, l.kind, p.price_cents, l.orderable,
                  CASE WHEN l.kind IN ('gamekey', 'giftcard')
                       THEN (SELECT count(*)::int FROM inventory_codes c WHERE c.product_id = p.id AND c.status = 'available')
                  END AS stock
             FROM products p JOIN game_lines l ON l.id = p.line_id
            WHERE p.active AND l.available
            ORDER BY l.sort_order, l.id, p.sort_order, p.id`,
  });
  return rows.map((row) => ({
    id: row.catalog_id,
    slug: row.slug,
    gameName: row.game_name,
    serviceName: row.product_name,
    packName: row.pack_name,
    kind: row.kind,
    price: centsToUsd(row.price_cents),
    currency: "USD" as const,
    orderable: row.orderable,
    ...(row.stock === null ? {} : { stock: row.stock }),
  }));
}
