// The packs whose free codes are below the alert threshold an owner set for them, fewest first:
// what the overview asks an operator to restock. Read from the catalog page's own listing, so both
// pages agree on what is low.
import { isBelowStockAlert, listCatalogWithStock } from "../catalog/list-catalog-with-stock";

export interface LowStockPack {
  productId: number;
  catalogId: string;
  packName: string;
  available: number;
  threshold: number;
}

export async function listLowStock(): Promise<LowStockPack[]> {
  const lines = await listCatalogWithStock();
  return lines
    .flatMap((line) => line.products)
    .filter(isBelowStockAlert)
    .map((pack) => ({
      productId: pack.id,
      catalogId: pack.catalogId,
      packName: pack.packName,
      available: pack.stock!.available,
      threshold: pack.stockAlertBelow!,
    }))
    .sort((a, b) => a.available - b.available || a.catalogId.localeCompare(b.catalogId));
}
