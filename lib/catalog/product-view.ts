// A pack as the API shows it to one caller (OpenAPI: Product): GET /products, /products/{id} and the
// data of product.updated events, all built from a row of product_view() (prisma/functions/product_view.sql).
import { centsToUsd } from "../money/cents-to-usd";
import type { LineKind } from "../generated/prisma/enums";

/** Why a pack takes no order: the code POST /orders answers for it. */
export const UNORDERABLE_REASONS = [
  "GAME_DISABLED",
  "PRODUCT_DISABLED",
  "INVALID_PRODUCT",
  "INSUFFICIENT_STOCK",
] as const;
type UnorderableReason = (typeof UNORDERABLE_REASONS)[number];

/** A row of product_view() at the caller's price tier. */
export interface ProductViewRecord {
  productId: number;
  catalogId: string;
  packName: string;
  priceCents: number;
  slug: string;
  gameName: string;
  productName: string;
  kind: LineKind;
  /** Active on an available line: GET /products lists it. */
  listed: boolean;
  unorderableReason: UnorderableReason | null;
  /** Codes in stock on game-key and gift-card packs (null on top-ups; not read by the events). */
  stock?: number | null;
  changedAt: Date;
}

export interface ProductView {
  id: string;
  slug: string;
  gameName: string;
  serviceName: string;
  packName: string;
  kind: LineKind;
  price: number;
  currency: "USD";
  orderable: boolean;
  unorderableReason?: UnorderableReason;
  stock?: number;
  updatedAt: string;
}

export function toProductView(row: ProductViewRecord): ProductView {
  return {
    id: row.catalogId,
    slug: row.slug,
    gameName: row.gameName,
    serviceName: row.productName,
    packName: row.packName,
    kind: row.kind,
    price: centsToUsd(row.priceCents),
    currency: "USD",
    orderable: row.unorderableReason === null,
    ...(row.unorderableReason === null ? {} : { unorderableReason: row.unorderableReason }),
    ...(row.stock === null || row.stock === undefined ? {} : { stock: row.stock }),
    updatedAt: row.changedAt.toISOString(),
  };
}
