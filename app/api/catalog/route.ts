import { publicRoute } from "@/lib/http/public-route";
import { otherMethods } from "@/lib/http/route-methods";
import { GET as getProducts } from "../products/route";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  ...getProducts.spec,
  path: "/catalog",
  summary: "Alias of GET /products (same payload)",
  description: undefined,
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
