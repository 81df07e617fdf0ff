import { publicRoute } from "@/lib/http/public-route";
import { ApiError, jsonResponse } from "@/lib/http/errors";
import {
  HistoryQuery,
  HistoryResponse,
  InvoiceResponse,
  LedgerQuery,
  LedgerResponse,
  LedgerStatementCsv,
  MAX_STATEMENT_DAYS,
  OrderBody,
  OrderIdParams,
  OrderWaitQuery,
  orderBodyAliases,
} from "@/lib/api-schemas/order-schemas";
import {
  findOrderReplay,
  placeOrder,
  placementKeyLookup,
  type PlacementPrefetch,
  type PlacementResult,
} from "@/lib/orders/sql/place-order";
import { findOwnOrder } from "@/lib/orders/sql/read-order";
import { orderIdReference, parseOrderReference } from "@/lib/orders/parse-order-reference";
import { buildInvoice, buildInvoices } from "@/lib/orders/sql/build-invoice";
import { waitForOrderFinish } from "@/lib/orders/sql/wait-for-order";
import { listKeyOrders } from "@/lib/orders/sql/list-orders";
import { ledgerToCsv, listLedgerEntries } from "@/lib/wallet/sql/list-ledger-entries";
import {
  openLedgerStatement,
  StatementsBusyError,
  type StatementRange,
} from "@/lib/wallet/sql/stream-ledger-statement";

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
    '200 with a cancelled invoice (`orderCreated: false`, `error: "INSUFFICIENT BALANCE"`); a new charge needs a new trxid. ' +
    'A fresh order answers `status: "processing"`; poll GET /orders/{orderId} until completed or cancelled. ' +
    "The invoice echoes `userId`, `zoneId` and `serverId` exactly as sent (a serverId label such as `NA` stays `NA`; " +
    "the supplier gets the resolved value). While MAINTENANCE or API_ORDER_DISABLED stops new orders, a repeat of an " +
    "order that exists still answers its invoice (`Idempotent-Replayed: true`), whatever has changed in the catalog since.",
  body: OrderBody,
  aliases: orderBodyAliases,
  response: InvoiceResponse,
  responseHeaders: {
    "Idempotent-Replayed": "`true` when the invoice is that of an earlier request with the same idempotency key",
  },
  errors: [
    "INVALID_REQUEST",
    "UNKNOWN_PID",
    "GAME_DISABLED",
    "INVALID_PRODUCT",
    "PRODUCT_DISABLED",
    "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD",
    "INSUFFICIENT_STOCK",
    "FORBIDDEN",
    "IDEMPOTENCY_MISMATCH",
    "DUPLICATE_IN_FLIGHT",
  ],
  replay: async ({ caller, body }) => {
    const earlier = await findOrderReplay(caller, body);
    return earlier && invoiceResponse(earlier);
  },
  withKeyLookup: placementKeyLookup,
  handle: async ({ caller, body, keyLookupExtra }) =>
    invoiceResponse(await placeOrder(caller, body, keyLookupExtra as PlacementPrefetch | undefined)),
});

function invoiceResponse({ invoice, replayed }: PlacementResult): Response {
  return jsonResponse({ success: true, ...invoice }, 200, replayed ? { "idempotent-replayed": "true" } : undefined);
}

export const getOrder = publicRoute({
  method: "GET",
  path: "/orders/:orderId",
  tag: "Orders",
  summary: "One of your orders",
  description:
    "Accepts the public id, your trxid, your idempotency key, or the numeric id. When the reference matches more than one " +
    'of your orders ("123" can be both an order id and a trxid), the first kind that matches wins, always in this order: ' +
    "publicId, trxid (the newest order with it), idempotencyKey, numeric id. The header `Order-Matched-By` names the kind " +
    "that matched; `?by=` restricts the lookup to one kind (`?by=id` for the numeric id). Another account's order, by any " +
    "form, is 404 ORDER NOT FOUND. With `?wait=N` the answer is held up to N seconds (max 30) until the order is completed " +
    "or cancelled.",
  params: OrderIdParams,
  query: OrderWaitQuery,
  response: InvoiceResponse,
  responseHeaders: {
    "Order-Matched-By": "The kind of reference `orderId` matched: publicId, trxid, idempotencyKey or id",
  },
  errors: ["ORDER_NOT_FOUND"],
  handle: async ({ caller, params, query }) => {
    const found = await findOwnOrder(caller.accountId, parseOrderReference(params.orderId, query.by));
    let order = found.order;
    const terminal = () => order.status === "completed" || order.status === "cancelled";
    if (query.wait && !terminal()) {
      const reread = async () => {
        order = (await findOwnOrder(caller.accountId, orderIdReference(order.id))).order;
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

export const getHistory = publicRoute({
  method: "GET",
  path: "/history",
  tag: "Orders",
  summary: "The calling key's orders, newest first",
  description:
    "Only orders placed with the key of this request (another key of the same account sees its own). Simple mode: `limit` " +
    "(1-200, default 30). Paged mode, when `page` is passed: `pageSize` (1-50, default 20), with `total` and `hasMore` " +
    "(counted over this key's orders). Values outside those ranges, or not whole numbers, answer 400 INVALID REQUEST with details.",
  query: HistoryQuery,
  response: HistoryResponse,
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

export const getLedger = publicRoute({
  method: "GET",
  path: "/ledger",
  tag: "Account",
  summary: "Your wallet statement (beyond the spec), newest first",
  description:
    "Every credit, debit, refund and adjustment with the balance after it, in pages, newest first. `?format=csv` answers the page " +
    "as CSV. `?format=csv&from=...&to=...` streams every entry with `from <= createdAt < to` (oldest first, not paged) between " +
    "an opening and a closing balance line, for reconciling a period in one download: `from` and `to` are ISO-8601 instants " +
    `with an offset or bare dates (00:00 UTC), at most ${MAX_STATEMENT_DAYS} days apart; a month is \`from=2026-10-01&to=2026-11-01\`. ` +
    "The opening balance plus the entries' amounts equals the closing balance. While the service already streams its " +
    "most statements at once, a statement answers 503 SERVICE UNAVAILABLE with Retry-After.",
  query: LedgerQuery,
  response: LedgerResponse,
  alternateContent: { "text/csv": LedgerStatementCsv },
  responseHeaders: {
    "Content-Disposition":
      "With format=csv: `attachment` with a file name (`ledger-<from>-to-<to>.csv` for a statement)",
  },
  errors: ["SERVICE_UNAVAILABLE"],
  handle: async ({ request, caller, query }) => {
    if (query.from && query.to)
      return ledgerStatementResponse(request, caller.accountId, { from: query.from, to: query.to });
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 50;
    const { total, entries } = await listLedgerEntries(caller.accountId, pageSize, (page - 1) * pageSize);
    if (query.format === "csv") {
      return new Response(ledgerToCsv(entries), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="ledger-page-${page}.csv"`,
        },
      });
    }
    return { success: true, page, pageSize, total, hasMore: page * pageSize < total, entries };
  },
});

/** A bound as a file-name part: the date at midnight UTC, else the instant without colons. */
function fileNameBound(at: Date): string {
  const iso = at.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.replace(/:/g, "").replace(".000Z", "Z");
}

async function ledgerStatementResponse(request: Request, accountId: number, range: StatementRange): Promise<Response> {
  let statement;
  try {
    statement = await openLedgerStatement(accountId, range);
  } catch (error) {
    if (error instanceof StatementsBusyError)
      throw new ApiError("SERVICE_UNAVAILABLE", { headers: { "retry-after": "5" } });
    throw error;
  }
  const headers = {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="ledger-${fileNameBound(range.from)}-to-${fileNameBound(range.to)}.csv"`,
    "cache-control": "no-store",
  };
  if (request.method === "HEAD") {
    await statement.body.cancel();
    return new Response(null, { headers });
  }
  return new Response(statement.body, { headers });
}
