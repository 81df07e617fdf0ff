// The catalog as the hot path's raw SQL reads it (GET /products, /catalog and /services, and the
// pack a placement buys): Prisma's Product and GameLine, the fields those paths use, with cents as
// numbers and the JSON columns in the shapes the seed and the dashboard write. Each statement selects
// through the column maps below and gets these shapes back from pg as they are.
import type { GameLine, Product } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import { qualifiedColumns, selectList, type ColumnMap } from "../db/select-list";

export type RequiredField = { field: string; label: string };
/** A serverId a line accepts; `aliases` are other spellings clients send (matched case-insensitively). */
export type ServerIdOption = { value: string; label: string; aliases?: string[] };

export type ProductRecord = BigintsAsNumbers<
  Pick<Product, "id" | "catalogId" | "packName" | "priceCents" | "active" | "supplierSku">
>;

export type GameLineRecord = Pick<
  GameLine,
  "slug" | "code" | "gameName" | "productName" | "kind" | "available" | "orderable" | "supplier"
> & {
  requiredFields: RequiredField[];
  serverIdOptions: ServerIdOption[] | null;
};

const PRODUCT_COLUMN_MAP: ColumnMap<ProductRecord> = {
  id: "id",
  catalogId: "catalog_id",
  packName: "pack_name",
  priceCents: "price_cents",
  active: "active",
  supplierSku: "supplier_sku",
};

const GAME_LINE_COLUMN_MAP: ColumnMap<GameLineRecord> = {
  slug: "slug",
  code: "code",
  gameName: "game_name",
  productName: "product_name",
  kind: "kind",
  available: "available",
  orderable: "orderable",
  supplier: "supplier",
  requiredFields: "required_fields",
  serverIdOptions: "server_id_options",
};

/** A listed pack: its product and line, and the codes in stock on code-delivered lines (null on top-ups). */
export type ListedProductRecord = Pick<ProductRecord, "catalogId" | "packName" | "priceCents"> &
  Pick<GameLineRecord, "slug" | "gameName" | "productName" | "kind" | "orderable"> & { stock: number | null };

const LISTED_PRODUCT_FIELDS = {
  ...qualifiedColumns(PRODUCT_COLUMN_MAP, "p", ["catalogId", "packName", "priceCents"]),
  ...qualifiedColumns(GAME_LINE_COLUMN_MAP, "l", ["slug", "gameName", "productName", "kind", "orderable"]),
} satisfies ColumnMap<Omit<ListedProductRecord, "stock">>;

/** The select list of a ListedProductRecord but `stock`, from `products` (as `p`) joined to `game_lines` (as `l`). */
export const LISTED_PRODUCT_COLUMNS = selectList(LISTED_PRODUCT_FIELDS);

/** The select list of a GameLineRecord from `game_lines`. */
export const GAME_LINE_COLUMNS = selectList(GAME_LINE_COLUMN_MAP);

/**
 * The pack a placement buys, with its line: product fields under their own names (`id` as
 * productId), line fields prefixed `line` where a product field would clash or mislead.
 */
export type CatalogEntry = {
  productId: ProductRecord["id"];
  catalogId: ProductRecord["catalogId"];
  packName: ProductRecord["packName"];
  priceCents: ProductRecord["priceCents"];
  productActive: ProductRecord["active"];
  supplierSku: ProductRecord["supplierSku"];
  lineSlug: GameLineRecord["slug"];
  lineCode: GameLineRecord["code"];
  lineKind: GameLineRecord["kind"];
  requiredFields: GameLineRecord["requiredFields"];
  serverIdOptions: GameLineRecord["serverIdOptions"];
  lineAvailable: GameLineRecord["available"];
  lineOrderable: GameLineRecord["orderable"];
  supplier: GameLineRecord["supplier"];
};

const CATALOG_ENTRY_COLUMN_MAP: ColumnMap<CatalogEntry> = {
  productId: `p.${PRODUCT_COLUMN_MAP.id}`,
  catalogId: `p.${PRODUCT_COLUMN_MAP.catalogId}`,
  packName: `p.${PRODUCT_COLUMN_MAP.packName}`,
  priceCents: `p.${PRODUCT_COLUMN_MAP.priceCents}`,
  productActive: `p.${PRODUCT_COLUMN_MAP.active}`,
  supplierSku: `p.${PRODUCT_COLUMN_MAP.supplierSku}`,
  lineSlug: `l.${GAME_LINE_COLUMN_MAP.slug}`,
  lineCode: `l.${GAME_LINE_COLUMN_MAP.code}`,
  lineKind: `l.${GAME_LINE_COLUMN_MAP.kind}`,
  requiredFields: `l.${GAME_LINE_COLUMN_MAP.requiredFields}`,
  serverIdOptions: `l.${GAME_LINE_COLUMN_MAP.serverIdOptions}`,
  lineAvailable: `l.${GAME_LINE_COLUMN_MAP.available}`,
  lineOrderable: `l.${GAME_LINE_COLUMN_MAP.orderable}`,
  supplier: `l.${GAME_LINE_COLUMN_MAP.supplier}`,
};

/**
 * A CatalogEntry as one JSON value, for a statement that returns it beside other columns: from
 * `products` (as `p`) joined to `game_lines` (as `l`). BIGINT cents become JSON numbers.
 */
export const CATALOG_ENTRY_JSON = `json_build_object(${Object.entries(CATALOG_ENTRY_COLUMN_MAP)
  .map(([field, column]) => `'${field}', ${column}`)
  .join(", ")})`;
