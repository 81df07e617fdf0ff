import { publicRoute } from "@/lib/http/public-route";
import { BR_PACK, switchedOffProduct } from "@/lib/openapi/example-values";
import { ProductIdParams, ProductResponse } from "@/lib/api-schemas/read-schemas";
import { readProduct } from "@/lib/catalog/sql/list-products";
import { ApiError } from "@/lib/http/errors";
import { otherMethods } from "@/lib/http/route-methods";
import { realSupplierRequired } from "@/lib/config/sandbox-serves-live-orders";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "getProduct",
  path: "/products/:id",
  tag: "Catalog",
  summary: "One pack, listed or not",
  description:
    "Any pack that ever existed, by its catalog id: packs are never deleted, so an id you stored (or an old invoice's `pid`) always answers. A switched-off pack answers `orderable: false` with `unorderableReason`, at the last price it had for you. Fields as in GET /products.",
  params: ProductIdParams,
  response: ProductResponse,
  example: {
    params: { id: BR_PACK },
    responses: {
      switchedOff: {
        summary: "A pack switched off on the dashboard",
        value: { success: true, ...switchedOffProduct },
      },
    },
  },
  clientSample: (call) => `const product = await ${call};`,
  errors: ["PRODUCT_NOT_FOUND"],
  // The caller's price (their account's price tier): never cache this answer across keys.
  handle: async ({ caller, params }) => {
    const product = await readProduct(params.id ?? "", caller.priceTierId, realSupplierRequired(caller.livemode));
    if (!product) throw new ApiError("PRODUCT_NOT_FOUND");
    return { success: true, ...product };
  },
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
