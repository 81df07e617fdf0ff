import { publicRoute } from "@/lib/http/public-route";
import { BR_PACK, brInvoice, ORDER_METADATA } from "@/lib/openapi/example-values";
import { ApiError, jsonResponse } from "@/lib/http/errors";
import { InvoiceResponse, OrderBody, orderBodyAliases } from "@/lib/api-schemas/order-schemas";
import { findOrderReplay, placeOrder, type PlacementResult } from "@/lib/orders/sql/place-order";
import { readOrderRequest } from "@/lib/orders/validate-order-request";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const POST = publicRoute({
  method: "POST",
  operationId: "placeOrder",
  path: "/orders",
  tag: "Orders",
  action: "order",
  summary: "Place an order for one pack",
  description:
    "Idempotent per account on `idempotencyKey ?? trxid`, forever. A duplicate of a finished request answers the same invoice " +
    "with the header `Idempotent-Replayed: true`; a duplicate while the original is still executing answers 429 " +
    "DUPLICATE_IN_FLIGHT; the same trxid from another key of your account answers 403 FORBIDDEN; the same trxid with a " +
    "different pid, identifiers, quantity or metadata answers 409 IDEMPOTENCY_MISMATCH. Stock is checked before the wallet: more codes " +
    "than are in stock answers 400 INSUFFICIENT_STOCK whatever the balance, stores nothing and leaves the trxid free. So do " +
    "the two guards, checked before the wallet too: a price above `maxPrice` (409 PRICE_ABOVE_MAX, with the current price) " +
    "and an order past the key's daily spending limit (403 KEY_SPENDING_LIMIT; the holder sets it with the bot's /keylimit). A " +
    "wallet that cannot cover the price answers " +
    '200 with a cancelled invoice (`orderCreated: false`, `error: "INSUFFICIENT BALANCE"`); a new charge needs a new trxid. ' +
    'A fresh order answers `status: "processing"`; poll GET /orders/{orderId} until completed or cancelled. ' +
    "The invoice echoes `userId`, `zoneId` and `serverId` exactly as sent (a serverId label such as `NA` stays `NA`; " +
    "the supplier gets the resolved value), and `metadata`, your own references, as stored (key order aside). While MAINTENANCE or API_ORDER_DISABLED stops new orders, a repeat of an " +
    "order that exists still answers its invoice (`Idempotent-Replayed: true`), whatever has changed in the catalog since.",
  body: OrderBody,
  aliases: orderBodyAliases,
  documentRequired: ["pid", "trxid"],
  response: InvoiceResponse,
  responseHeaders: {
    "Idempotent-Replayed": {
      description: "`true` when the invoice is that of an earlier request with the same idempotency key",
    },
  },
  example: {
    body: { pid: BR_PACK, trxid: "INV-10001", userId: "5123456789", metadata: ORDER_METADATA },
    responses: {
      placed: {
        summary: "Placed: the wallet was debited and fulfilment started",
        value: { success: true, ...brInvoice },
      },
      insufficientBalance: {
        summary: "The wallet could not cover it: nothing charged (a new charge needs a new trxid)",
        value: {
          success: true,
          ...brInvoice,
          orderCreated: false,
          status: "cancelled",
          error: "INSUFFICIENT BALANCE",
          refunded: false,
          durationSec: 0,
        },
      },
    },
  },
  clientSample: (call) =>
    "// Retries resend the same trxid, so a retry never buys twice.\n" +
    `const { invoice, replayed } = await ${call};\n` +
    "const finished = await client.waitForOrder(invoice.orderId, { timeoutMs: 60_000 });",
  errors: [
    "INVALID_REQUEST",
    "UNKNOWN_PID",
    "GAME_DISABLED",
    "INVALID_PRODUCT",
    "PRODUCT_DISABLED",
    "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD",
    "INSUFFICIENT_STOCK",
    "PRICE_ABOVE_MAX",
    "KEY_SPENDING_LIMIT",
    "FORBIDDEN",
    "IDEMPOTENCY_MISMATCH",
    "DUPLICATE_IN_FLIGHT",
  ],
  handle: async ({ caller, body, closedBy }) => {
    const request = readOrderRequest(body);
    if (closedBy) {
      // A switch stops new orders: only a repeat of an order that exists still answers.
      const earlier = request instanceof ApiError ? undefined : await findOrderReplay(caller, request);
      if (!earlier) throw new ApiError(closedBy);
      return invoiceResponse(earlier);
    }
    if (request instanceof ApiError) throw request;
    return invoiceResponse(await placeOrder(caller, request));
  },
});

function invoiceResponse({ invoice, replayed }: PlacementResult): Response {
  return jsonResponse({ success: true, ...invoice }, 200, replayed ? { "idempotent-replayed": "true" } : undefined);
}

export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
