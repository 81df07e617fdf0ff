// The catalog as the hot path's raw SQL reads it (GET /services, and the
// pack a placement buys, prisma/functions/catalog_entry.sql): Prisma's Product and GameLine, the fields
// those paths use, with cents as numbers and the JSON columns in the shapes the seed and the
// dashboard write.
import type { GameLine, Product } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";

export type RequiredField = { field: string; label: string };
/** A serverId a line accepts; `aliases` are other spellings clients send (matched case-insensitively). */
export type ServerIdOption = { value: string; label: string; aliases?: string[] };

type ProductRecord = BigintsAsNumbers<
  Pick<Product, "id" | "catalogId" | "packName" | "priceCents" | "active" | "supplierSku">
>;

export type GameLineRecord = Pick<
  GameLine,
  "slug" | "code" | "gameName" | "productName" | "kind" | "available" | "orderable" | "supplier"
> & {
  requiredFields: RequiredField[];
  serverIdOptions: ServerIdOption[] | null;
};

/**
 * The pack a placement buys, with its line: product fields under their own names (`id` as
 * productId), line fields prefixed `line` where a product field would clash or mislead.
 */
export type CatalogEntry = {
  productId: ProductRecord["id"];
  catalogId: ProductRecord["catalogId"];
  packName: ProductRecord["packName"];
  /** The unit price the caller is charged: pack_price() at the caller's price tier (the list price without one). */
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
  /** real_supplier_carries(): an unpaused supplier other than the sandbox has an offer for the pack. */
  realSupplier: boolean;
};
