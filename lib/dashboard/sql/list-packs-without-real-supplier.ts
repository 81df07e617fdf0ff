// The live top-up packs no real supplier carries: in production their live orders are refused
// (INVALID_PRODUCT, `orderable: false`), so the overview asks an owner to add a supplier or an offer.
// The rule is asked of real_supplier_carries() itself (prisma/functions/), as placement asks it.
import { getPrisma } from "../../db/prisma";

export interface PackWithoutRealSupplier {
  productId: number;
  catalogId: string;
  packName: string;
  gameName: string;
  /** Real suppliers that carry it but are paused (empty: none carries it). */
  pausedSuppliers: string[];
}

/** Active packs of lines that take orders, in the catalog's order. */
export async function listPacksWithoutRealSupplier(): Promise<PackWithoutRealSupplier[]> {
  return getPrisma().$queryRaw<PackWithoutRealSupplier[]>`
    SELECT p.id AS "productId", p.catalog_id AS "catalogId", p.pack_name AS "packName",
           l.game_name AS "gameName",
           ARRAY(SELECT s.name FROM supplier_offers f JOIN suppliers s ON s.id = f.supplier_id
                           JOIN supplier_kinds k ON k.kind = s.kind
                  WHERE f.product_id = p.id AND k.real
                  ORDER BY f.priority, f.id) AS "pausedSuppliers"
      FROM products p JOIN game_lines l ON l.id = p.line_id
     WHERE p.active AND l.kind = 'topup' AND l.available AND l.orderable
       AND NOT real_supplier_carries(p.id)
     ORDER BY l.sort_order, p.line_id, p.sort_order, p.id`;
}
