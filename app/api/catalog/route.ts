import { publicRoute } from "@/lib/http/public-route";
import { CATALOG_CHANGED_AT, products } from "@/lib/openapi/example-values";
import { otherMethods } from "@/lib/http/route-methods";
import { GET as getProducts } from "../products/route";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  ...getProducts.spec,
  operationId: "getCatalog",
  path: "/catalog",
  summary: "Alias of GET /products (same payload)",
  description: "The same payload as GET /products: one row per active pack, each `id` usable as `pid` on POST /orders.",
  example: {
    query: { updatedSince: CATALOG_CHANGED_AT },
    responses: { products: { summary: "The same payload as GET /products", value: { success: true, products } } },
  },
  clientSample: (call) => `const { products } = await ${call};`,
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
