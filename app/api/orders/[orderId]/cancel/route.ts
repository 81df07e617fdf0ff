import { publicRoute } from "@/lib/http/public-route";
import { brInvoice, cancelledByResellerInvoice } from "@/lib/openapi/example-values";
import { ApiError } from "@/lib/http/errors";
import { InvoiceResponse, OrderIdParams, OrderReferenceQuery } from "@/lib/api-schemas/order-schemas";
import { findOwnOrder } from "@/lib/orders/sql/read-order";
import { parseOrderReference } from "@/lib/orders/parse-order-reference";
import { buildInvoice } from "@/lib/orders/sql/build-invoice";
import { cancelOwnOrder } from "@/lib/orders/cancel-own-order";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "cancelOrder",
  path: "/orders/:orderId/cancel",
  tag: "Orders",
  summary: "Cancel one of your orders before it reaches a supplier",
  description:
    "Takes back an order no supplier has been asked about yet: a game-key or gift-card order not yet delivered, or a " +
    "top-up the worker has not sent yet. It is cancelled (`error` CANCELLED BY RESELLER) and its charge refunded to the " +
    "wallet, once; the answer is its invoice. An order already with a supplier is 409 ORDER_WITH_SUPPLIER and one " +
    "already completed or cancelled (a second cancel too) 409 ORDER_FINISHED, both changing nothing. A cancel racing " +
    "the worker has one winner: either the order is cancelled and refunded, or it goes on and this call answers 409. " +
    "The `order.cancelled` webhook event carries `cancelledBy`. `orderId` takes every reference form GET " +
    "/orders/{orderId} takes.",
  params: OrderIdParams,
  query: OrderReferenceQuery,
  response: InvoiceResponse,
  example: {
    params: { orderId: brInvoice.trxid },
    query: { by: "trxid" },
    responses: {
      cancelled: {
        summary: "Cancelled and refunded",
        value: { success: true, ...cancelledByResellerInvoice },
      },
    },
  },
  clientSample: (call) => `const cancelled = await ${call};`,
  errors: ["ORDER_NOT_FOUND", "ORDER_WITH_SUPPLIER", "ORDER_FINISHED"],
  handle: async ({ caller, params, query }) => {
    const { order } = await findOwnOrder(caller.accountId, parseOrderReference(params.orderId ?? "", query.by));
    const result = await cancelOwnOrder({
      accountId: caller.accountId,
      order,
      actor: `api-key:${caller.keyId}`,
      via: "api",
    });
    if (result.status === "with_supplier")
      throw new ApiError("ORDER_WITH_SUPPLIER", { extra: { status: result.order.status } });
    if (result.status === "finished") throw new ApiError("ORDER_FINISHED", { extra: { status: result.order.status } });
    return { success: true, ...(await buildInvoice(result.order)) };
  },
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
