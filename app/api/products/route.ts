import { publicRoute } from "@/lib/http/public-route";
import { CATALOG_CHANGED_AT, products } from "@/lib/openapi/example-values";
import { listProducts } from "@/lib/catalog/sql/list-products";
import { ProductsQuery, ProductsResponse } from "@/lib/api-schemas/read-schemas";
import { otherMethods } from "@/lib/http/route-methods";
import { realSupplierRequired } from "@/lib/config/sandbox-serves-live-orders";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "listProducts",
  path: "/products",
  tag: "Catalog",
  summary: "The catalog: one row per active pack",
  description:
    "Each `id` is a catalog id usable as `pid` on POST /orders. `stock` is present on game-key and gift-card packs. Prices are the calling key's (its account's price tier): what POST /orders charges it. " +
    "With `updatedSince`, only the packs whose `updatedAt` is at or after it, switched-off ones included (`orderable: false` and `unorderableReason`): poll with the largest `updatedAt` you have read, or take `product.updated` events (docs/webhooks.md).",
  query: ProductsQuery,
  response: ProductsResponse,
  example: {
    query: { updatedSince: CATALOG_CHANGED_AT },
    responses: {
      products: {
        summary: "A top-up pack and a game-key pack, both changed at the instant asked for (included)",
        value: { success: true, products },
      },
    },
  },
  clientSample: (call) => `const { products } = await ${call};`,
  errors: [],
  // The caller's prices (their account's price tier): never cache this answer across keys.
  handle: async ({ caller, query }) => ({
    success: true,
    products: await listProducts(caller.priceTierId, realSupplierRequired(caller.livemode), query.updatedSince),
  }),
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
