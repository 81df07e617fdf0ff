import { publicRoute } from "@/lib/http/public-route";
import { jsonResponse } from "@/lib/http/errors";
import {
  HistoryQuery,
  HistoryResponse,
  InvoiceResponse,
  LedgerQuery,
  LedgerResponse,
  OrderBody,
  OrderIdParams,
  OrderWaitQuery,
  orderBodyAliases,
} from "@/lib/api-schemas/order-schemas";
import { placeOrder } from "@/lib/orders/place-order";
import { findOwnOrder } from "@/lib/orders/read-order";
import { buildInvoice, buildInvoices } from "@/lib/orders/build-invoice";
import { waitForOrderFinish } from "@/lib/orders/wait-for-order";
import { countOwnOrders, listOwnOrders } from "@/lib/orders/list-orders";
import { ledgerToCsv, listLedgerEntries } from "@/lib/wallet/list-ledger-entries";

export const postOrder = publicRoute({
  method: "POST",
  path: "/orders",
  tag: "Orders",
  action: "order",
  summary: "Place an order for one pack",
  description:
    "Idempotent per account on `idempotencyKey ?? trxid`, forever. A duplicate of a finished request answers the same invoice " +
    "with the header `Idempotent-Replayed: true`; a duplicate while the original is still executing answers 429 " +
    "DUPLICATE_IN_FLIGHT; the same trxid from another key of your account answers 403 FORBIDDEN; the same trxid with a " +
    "different pid, identifiers or quantity answers 409 IDEMPOTENCY_MISMATCH. A wallet that cannot cover the price answers " +
    "200 with a cancelled invoice (`orderCreated: false`, `error: \"INSUFFICIENT BALANCE\"`); a new charge needs a new trxid. " +
    "A fresh order answers `status: \"processing\"`; poll GET /orders/{orderId} until completed or cancelled.",
  body: OrderBody,
  aliases: orderBodyAliases,
  response: InvoiceResponse,
  errors: [
    "INVALID_REQUEST",
    "UNKNOWN_PID",
    "GAME_DISABLED",
    "INVALID_PRODUCT",
    "PRODUCT_DISABLED",
    "QUANTITY_ONLY_FOR_STOCK_LINES",
    "INSUFFICIENT_STOCK",
    "FORBIDDEN",
    "IDEMPOTENCY_MISMATCH",
    "DUPLICATE_IN_FLIGHT",
  ],
  handle: async ({ caller, body }) => {
    const { invoice, replayed } = await placeOrder(caller, body);
    return jsonResponse({ success: true, ...invoice }, 200, replayed ? { "idempotent-replayed": "true" } : undefined);
  },
});

export const getOrder = publicRoute({
  method: "GET",
  path: "/orders/:orderId",
  tag: "Orders",
  summary: "One of your orders",
  description:
    "Accepts the numeric id, the public id, or your trxid. Another account's order, by any form, is 404 ORDER NOT FOUND. " +
    "With `?wait=N` the answer is held up to N seconds (max 30) until the order is completed or cancelled.",
  params: OrderIdParams,
  query: OrderWaitQuery,
  response: InvoiceResponse,
  errors: ["ORDER_NOT_FOUND"],
  handle: async ({ caller, params, query }) => {
    let order = await findOwnOrder(caller.accountId, params.orderId);
    const terminal = () => order.status === "completed" || order.status === "cancelled";
    if (query.wait && !terminal()) {
      const reread = async () => {
        order = await findOwnOrder(caller.accountId, String(order.id));
        return terminal();
      };
      await waitForOrderFinish(order.id, query.wait * 1000, reread);
      await reread();
    }
    return { success: true, ...(await buildInvoice(order)) };
  },
});

export const getHistory = publicRoute({
  method: "GET",
  path: "/history",
  tag: "Orders",
  summary: "Your orders, newest first",
  description:
    "Simple mode: `limit` (1-200, default 30). Paged mode, when `page` is passed: `pageSize` (1-50, default 20), with `total` " +
    "and `hasMore`. Values outside those ranges, or not whole numbers, answer 400 INVALID REQUEST with details.",
  query: HistoryQuery,
  response: HistoryResponse,
  errors: [],
  handle: async ({ caller, query }) => {
    if (query.page === undefined) {
      const orders = await buildInvoices(await listOwnOrders(caller.accountId, query.limit ?? 30));
      return { success: true, count: orders.length, orders };
    }
    const pageSize = query.pageSize ?? 20;
    const [rows, total] = await Promise.all([
      listOwnOrders(caller.accountId, pageSize, (query.page - 1) * pageSize),
      countOwnOrders(caller.accountId),
    ]);
    const orders = await buildInvoices(rows);
    return { success: true, count: orders.length, orders, page: query.page, pageSize, total, hasMore: query.page * pageSize < total };
  },
});

export const getLedger = publicRoute({
  method: "GET",
  path: "/ledger",
  tag: "Account",
  summary: "Your wallet statement (beyond the spec), newest first",
  description: "Every credit, debit, refund and adjustment with the balance after it. `?format=csv` for reconciliation.",
  query: LedgerQuery,
  response: LedgerResponse,
  errors: [],
  handle: async ({ caller, query }) => {
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 50;
    const { total, entries } = await listLedgerEntries(caller.accountId, pageSize, (page - 1) * pageSize);
    if (query.format === "csv") {
      return new Response(ledgerToCsv(entries), {
        headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="ledger-page-${page}.csv"` },
      });
    }
    return { success: true, page, pageSize, total, hasMore: page * pageSize < total, entries };
  },
});
