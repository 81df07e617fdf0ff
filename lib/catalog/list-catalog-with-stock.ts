import { getPrisma } from "../db/prisma";
import type { CodeStatus, LineKind } from "../generated/prisma/enums";
import { numberFromDb } from "../db/number-from-db";
import type { RequiredField, ServerIdOption } from "./catalog-record";

export interface CatalogProductWithStock {
  id: number;
  catalogId: string;
  packName: string;
  priceCents: number;
  active: boolean;
  supplierSku: string | null;
  /** Warn when fewer codes than this are available (game-key and gift-card packs); null: no rule. */
  stockAlertBelow: number | null;
  /** How many supplier accounts carry the pack: a top-up with none cannot be fulfilled. */
  supplierCount: number;
  /** Code counts for game-key and gift-card products; null for top-ups (the supplier delivers). */
  stock: { available: number; reserved: number; delivered: number } | null;
  /** The cheapest cost among the suppliers that carry a top-up; null without one. */
  cheapestCostCents: number | null;
  /** The row's version, carried by its edit forms (lib/db/edit-version.ts). */
  updatedAt: Date;
}

export interface CatalogLineWithStock {
  id: number;
  slug: string;
  code: string;
  gameName: string;
  productName: string;
  kind: LineKind;
  /** Listed by GET /services. */
  available: boolean;
  /** Takes new orders; false answers GAME DISABLED. */
  orderable: boolean;
  /** Hours after completion a refund may be requested; null: none. */
  refundWindowHours: number | null;
  supplier: string;
  requiredFields: RequiredField[];
  serverIdOptions: ServerIdOption[] | null;
  products: CatalogProductWithStock[];
  /** The row's version, carried by its edit forms (lib/db/edit-version.ts). */
  updatedAt: Date;
}

/** A code-delivered pack whose free codes are below the alert an owner set for it. */
export function isBelowStockAlert(product: Pick<CatalogProductWithStock, "stock" | "stockAlertBelow">): boolean {
  return (
    product.stock !== null && product.stockAlertBelow !== null && product.stock.available < product.stockAlertBelow
  );
}

export function isStockKind(kind: CatalogLineWithStock["kind"]): boolean {
  return kind === "gamekey" || kind === "giftcard";
}

/** Every line and product (active or not) with code stock per product, in catalog order. */
export async function listCatalogWithStock(): Promise<CatalogLineWithStock[]> {
  const prisma = getPrisma();
  const [lines, stock] = await Promise.all([
    prisma.gameLine.findMany({
      select: {
        id: true,
        slug: true,
        code: true,
        gameName: true,
        productName: true,
        kind: true,
        available: true,
        orderable: true,
        refundWindowHours: true,
        supplier: true,
        requiredFields: true,
        serverIdOptions: true,
        updatedAt: true,
        products: {
          select: {
            id: true,
            catalogId: true,
            packName: true,
            priceCents: true,
            active: true,
            supplierSku: true,
            stockAlertBelow: true,
            updatedAt: true,
            _count: { select: { offers: true } },
            offers: { select: { costCents: true }, orderBy: { costCents: "asc" }, take: 1 },
          },
          orderBy: [{ sortOrder: "asc" }, { id: "asc" }],
        },
      },
      orderBy: [{ sortOrder: "asc" }, { id: "asc" }],
    }),
    // One grouped scan of inventory_codes (indexed by product and status) instead of a count per product.
    prisma.inventoryCode.groupBy({ by: ["productId", "status"], _count: { _all: true } }),
  ]);
  const count = (productId: number, status: CodeStatus) =>
    stock.find((group) => group.productId === productId && group.status === status)?._count._all ?? 0;
  return lines.map((line) => ({
    ...line,
    requiredFields: line.requiredFields as RequiredField[],
    serverIdOptions: (line.serverIdOptions ?? null) as ServerIdOption[] | null,
    products: line.products.map(({ offers, _count, ...product }) => ({
      ...product,
      supplierCount: _count.offers,
      priceCents: numberFromDb(product.priceCents),
      cheapestCostCents: offers[0] ? numberFromDb(offers[0].costCents) : null,
      stock: isStockKind(line.kind)
        ? {
            available: count(product.id, "available"),
            reserved: count(product.id, "reserved"),
            delivered: count(product.id, "delivered"),
          }
        : null,
    })),
  }));
}
