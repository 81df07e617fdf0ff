import { publicRoute } from "@/lib/http/public-route";
import { listProducts } from "@/lib/catalog/sql/list-products";
import { ProductsResponse } from "@/lib/api-schemas/read-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "listProducts",
  path: "/products",
  tag: "Catalog",
  summary: "The catalog: one row per active pack",
  description:
    "Each `id` is a catalog id usable as `pid` on POST /orders. `stock` is present on game-key and gift-card packs.",
  response: ProductsResponse,
  errors: [],
  handle: async () => ({ success: true, products: await listProducts() }),
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
