import { publicRoute } from "@/lib/http/public-route";
import { products } from "@/lib/openapi/example-values";
import { listProducts } from "@/lib/catalog/sql/list-products";
import { ProductsResponse } from "@/lib/api-schemas/read-schemas";
import { otherMethods } from "@/lib/http/route-methods";
import { sandboxServesLiveOrders } from "@/lib/config/sandbox-serves-live-orders";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "listProducts",
  path: "/products",
  tag: "Catalog",
  summary: "The catalog: one row per active pack",
  description:
    "Each `id` is a catalog id usable as `pid` on POST /orders. `stock` is present on game-key and gift-card packs. Prices are the calling key's (its account's price tier): what POST /orders charges it.",
  response: ProductsResponse,
  example: {
    responses: { products: { summary: "A top-up pack and a game-key pack", value: { success: true, products } } },
  },
  clientSample: (call) => `const { products } = await ${call};`,
  errors: [],
  // The caller's prices (their account's price tier): never cache this answer across keys.
  handle: async ({ caller }) => ({
    success: true,
    products: await listProducts(caller.priceTierId, caller.livemode && !sandboxServesLiveOrders()),
  }),
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
