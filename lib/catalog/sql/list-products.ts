import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { toProductView, type ProductView, type ProductViewRecord } from "../product-view";

/**
 * GET /products and /catalog: the listed packs (active, on an available line); with `updatedSince`,
 * every pack whose updatedAt is at or after it, listed or not (a pack switched off is a change).
 * `price` is the caller's: pack_price() at the caller's price tier (null: list prices), the price a
 * placement charges (catalog_entry uses the same function), so nothing here may be shared between
 * callers. `realSupplierRequired`: a live key in production, for which a top-up no real supplier
 * carries is not orderable.
 */
export async function listProducts(
  priceTierId: number | null,
  realSupplierRequired = false,
  updatedSince?: Date,
): Promise<ProductView[]> {
  const statement = updatedSince
    ? prepared(
        "list-products-updated-since",
        sql`SELECT v."catalogId", v."packName", v."priceCents", v.slug, v."gameName", v."productName", v.kind,
                   v."unorderableReason", v.stock, v."changedAt"
              FROM product_view(${priceTierId}::int, ${realSupplierRequired}::boolean) v
             WHERE v."changedAt" >= ${updatedSince}::timestamptz
             ORDER BY v."lineSortOrder", v."lineId", v."sortOrder", v."productId"`,
      )
    : prepared(
        "list-products",
        sql`SELECT v."catalogId", v."packName", v."priceCents", v.slug, v."gameName", v."productName", v.kind,
                   v."unorderableReason", v.stock, v."changedAt"
              FROM product_view(${priceTierId}::int, ${realSupplierRequired}::boolean) v
             WHERE v.listed
             ORDER BY v."lineSortOrder", v."lineId", v."sortOrder", v."productId"`,
      );
  const { rows } = await getPool().query<ProductViewRecord>(statement);
  return rows.map(toProductView);
}

/** GET /products/{id}: any pack that ever existed (packs are never deleted), at the caller's price. */
export async function readProduct(
  catalogId: string,
  priceTierId: number | null,
  realSupplierRequired = false,
): Promise<ProductView | undefined> {
  const { rows } = await getPool().query<ProductViewRecord>(
    prepared(
      "read-product",
      sql`SELECT v."catalogId", v."packName", v."priceCents", v.slug, v."gameName", v."productName", v.kind,
                 v."unorderableReason", v.stock, v."changedAt"
            FROM product_view(${priceTierId}::int, ${realSupplierRequired}::boolean) v
           WHERE v."catalogId" = ${catalogId}`,
    ),
  );
  return rows[0] && toProductView(rows[0]);
}
