// The packs whose free codes are below the alert threshold an owner set for them, fewest first:
// what the overview asks an operator to restock.
import { getPrisma } from "../db/prisma";

export interface LowStockPack {
  productId: number;
  catalogId: string;
  packName: string;
  available: number;
  threshold: number;
}

export async function listLowStock(): Promise<LowStockPack[]> {
  const prisma = getPrisma();
  const watched = await prisma.product.findMany({
    where: { stockAlertBelow: { not: null }, line: { kind: { in: ["gamekey", "giftcard"] } } },
    select: { id: true, catalogId: true, packName: true, stockAlertBelow: true },
  });
  if (watched.length === 0) return [];
  const counts = await prisma.inventoryCode.groupBy({
    by: ["productId"],
    where: { productId: { in: watched.map((pack) => pack.id) }, status: "available" },
    _count: { _all: true },
  });
  const available = new Map(counts.map((group) => [group.productId, group._count._all]));
  return watched
    .map((pack) => ({
      productId: pack.id,
      catalogId: pack.catalogId,
      packName: pack.packName,
      available: available.get(pack.id) ?? 0,
      threshold: pack.stockAlertBelow!,
    }))
    .filter((pack) => pack.available < pack.threshold)
    .sort((a, b) => a.available - b.available || a.catalogId.localeCompare(b.catalogId));
}
