import { publicRoute } from "@/lib/http/public-route";
import { brInvoice, completedInvoice } from "@/lib/openapi/example-values";
import { jsonResponse } from "@/lib/http/errors";
import { InvoiceResponse, OrderIdParams, OrderWaitQuery } from "@/lib/api-schemas/order-schemas";
import { findOwnOrder } from "@/lib/orders/sql/read-order";
import { orderIdReference, parseOrderReference } from "@/lib/orders/parse-order-reference";
import { buildInvoice } from "@/lib/orders/sql/build-invoice";
import { waitForOrderFinish } from "@/lib/orders/sql/wait-for-order";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "getOrder",
  path: "/orders/:orderId",
  tag: "Orders",
  summary: "One of your orders",
  description:
    "Accepts the public id, your trxid, your idempotency key, or the order number: the number in your public id, its " +
    "third part read as a base36 number (`SVCAPI-BR-0K3M9QZT-7F3KQ1` is order number 43754451689, " +
    "`parseInt('0K3M9QZT', 36)`). When the reference matches more than one of your orders (\"123\" can be both an order " +
    "number and a trxid), the first kind that matches wins, always in this order: publicId, trxid (the newest order " +
    "with it), idempotencyKey, order number. The header `Order-Matched-By` names the kind that matched; `?by=` restricts " +
    "the lookup to one kind (`?by=id` for the order number). Another account's order, by any form, is 404 ORDER NOT " +
    "FOUND. With `?wait=N` the answer is held up to N seconds (max 30) until the order is completed or cancelled.",
  params: OrderIdParams,
  query: OrderWaitQuery,
  response: InvoiceResponse,
  responseHeaders: {
    "Order-Matched-By": {
      description: "The kind of reference `orderId` matched: publicId, trxid, idempotencyKey or id",
      required: true,
    },
  },
  example: {
    // The trxid POST /orders' example places, so the examples run in order (the Postman collection) find it.
    params: { orderId: brInvoice.trxid },
    query: { wait: "10" },
    responses: {
      completed: {
        summary: "Completed (held up to 10 s until it finished)",
        value: { success: true, ...completedInvoice },
      },
    },
  },
  clientSample: (call) => `const order = await ${call};`,
  errors: ["ORDER_NOT_FOUND"],
  handle: async ({ caller, params, query }) => {
    const found = await findOwnOrder(caller.accountId, parseOrderReference(params.orderId ?? "", query.by));
    let order = found.order;
    const terminal = () => order.status === "completed" || order.status === "cancelled";
    if (query.wait && !terminal()) {
      const reread = async () => {
        order = (await findOwnOrder(caller.accountId, orderIdReference(order))).order;
        return terminal();
      };
      await waitForOrderFinish(order.id, query.wait * 1000, reread);
      await reread();
    }
    return jsonResponse({ success: true, ...(await buildInvoice(order)) }, 200, {
      "order-matched-by": found.matchedBy,
    });
  },
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
