import { publicRoute } from "@/lib/http/public-route";
import { completedInvoice } from "@/lib/openapi/example-values";
import { HistoryQuery, HistoryResponse } from "@/lib/api-schemas/order-schemas";
import { buildInvoices } from "@/lib/orders/sql/build-invoice";
import { listKeyOrders } from "@/lib/orders/sql/list-orders";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "getHistory",
  path: "/history",
  tag: "Orders",
  summary: "The calling key's orders, newest first",
  description:
    "Only orders placed with the key of this request (another key of the same account sees its own). Simple mode: `limit` " +
    "(1-200, default 30). Paged mode, when `page` is passed: `pageSize` (1-50, default 20), with `total` and `hasMore` " +
    "(counted over this key's orders). Values outside those ranges, or not whole numbers, answer 400 INVALID REQUEST with details.",
  query: HistoryQuery,
  response: HistoryResponse,
  example: {
    query: { page: "1", pageSize: "20" },
    responses: {
      page: {
        summary: "Paged mode",
        value: { success: true, count: 1, orders: [completedInvoice], page: 1, pageSize: 20, total: 1, hasMore: false },
      },
    },
  },
  clientSample: (call) =>
    `const { orders, hasMore } = await ${call};\n` +
    "// or every order of this key, page after page:\n" +
    "for await (const order of client.iterateHistory()) console.log(order.orderId, order.status);",
  errors: [],
  handle: async ({ caller, query }) => {
    const scope = { accountId: caller.accountId, keyId: caller.keyId };
    if (query.page === undefined) {
      const orders = await buildInvoices((await listKeyOrders(scope, query.limit ?? 30)).orders);
      return { success: true, count: orders.length, orders };
    }
    const pageSize = query.pageSize ?? 20;
    const { total, orders: rows } = await listKeyOrders(scope, pageSize, (query.page - 1) * pageSize);
    const orders = await buildInvoices(rows);
    return {
      success: true,
      count: orders.length,
      orders,
      page: query.page,
      pageSize,
      total,
      hasMore: query.page * pageSize < total,
    };
  },
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
