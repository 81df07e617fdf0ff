import { publicRoute } from "@/lib/http/public-route";
import { brInvoice, refundRequestedInvoice } from "@/lib/openapi/example-values";
import { ApiError } from "@/lib/http/errors";
import {
  InvoiceResponse,
  OrderIdParams,
  OrderReferenceQuery,
  RefundRequestBody,
} from "@/lib/api-schemas/order-schemas";
import { findOwnOrder } from "@/lib/orders/sql/read-order";
import { parseOrderReference } from "@/lib/orders/parse-order-reference";
import { buildInvoice } from "@/lib/orders/sql/build-invoice";
import { requestRefund } from "@/lib/refunds/sql/request-refund";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "requestRefund",
  path: "/orders/:orderId/refund-request",
  tag: "Orders",
  summary: "Ask for the refund of a completed order",
  description:
    "For a completed order, within the refund window its line allows after completion (set by the service's admins; " +
    "a line without one takes no requests). One request per order. The answer is the invoice with `refundRequest` " +
    "(status `requested`); an admin then refunds all or part of the charge to your wallet, or declines, and the " +
    "invoice, GET /orders/{orderId} and the webhook events `order.refund_requested`, `order.refunded` and " +
    "`order.refund_declined` say so. A refunded game key or gift card is revoked: it is no longer shown on the invoice.",
  params: OrderIdParams,
  query: OrderReferenceQuery,
  body: RefundRequestBody,
  response: InvoiceResponse,
  example: {
    params: { orderId: brInvoice.trxid },
    query: { by: "trxid" },
    body: { reason: "The player says the diamonds never arrived" },
    responses: {
      requested: { summary: "Requested; an admin decides", value: { success: true, ...refundRequestedInvoice } },
    },
  },
  clientSample: (call) => `const { refundRequest } = await ${call};`,
  errors: ["ORDER_NOT_FOUND", "REFUND_NOT_AVAILABLE", "REFUND_WINDOW_CLOSED", "REFUND_ALREADY_REQUESTED"],
  handle: async ({ caller, params, query, body }) => {
    const { order } = await findOwnOrder(caller.accountId, parseOrderReference(params.orderId ?? "", query.by));
    const result = await requestRefund({
      accountId: caller.accountId,
      orderId: order.id,
      reason: body.reason,
      actor: `api-key:${caller.keyId}`,
    });
    if (result.status === "not_available") throw new ApiError("REFUND_NOT_AVAILABLE");
    if (result.status === "window_closed")
      throw new ApiError("REFUND_WINDOW_CLOSED", { extra: { closedAt: result.closedAt.toISOString() } });
    if (result.status === "already_requested") throw new ApiError("REFUND_ALREADY_REQUESTED");
    return { success: true, ...(await buildInvoice(result.order)) };
  },
});

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
