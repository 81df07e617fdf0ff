// The live top-up packs no real supplier carries: in production their live orders are refused
// (INVALID_PRODUCT, `orderable: false`), so the overview asks an owner to add a supplier or an offer.
// The same rule as prisma/functions/real_supplier_carries.sql: an offer from a supplier that is not
// the sandbox and not paused.
import { getPrisma } from "../db/prisma";

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
  const products = await getPrisma().product.findMany({
    where: {
      active: true,
      line: { kind: "topup", available: true, orderable: true },
      offers: { none: { supplier: { kind: { not: "sandbox" }, pausedAt: null } } },
    },
    orderBy: [{ line: { sortOrder: "asc" } }, { lineId: "asc" }, { sortOrder: "asc" }, { id: "asc" }],
    select: {
      id: true,
      catalogId: true,
      packName: true,
      line: { select: { gameName: true } },
      offers: {
        where: { supplier: { kind: { not: "sandbox" } } },
        select: { supplier: { select: { name: true } } },
        orderBy: { priority: "asc" },
      },
    },
  });
  return products.map((product) => ({
    productId: product.id,
    catalogId: product.catalogId,
    packName: product.packName,
    gameName: product.line.gameName,
    pausedSuppliers: product.offers.map((offer) => offer.supplier.name),
  }));
}
