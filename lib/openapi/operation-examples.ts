// Request and response examples of every operation, shown on /docs and in /openapi.json. Catalog
// values are read from the demo catalog (`npm run db:seed`, lib/seed/demo-catalog.ts) so an example
// can be sent as it is with the demo key.
// A unit test parses each example with the route's own zod schemas, so none can drift from what
// the API accepts and answers (tests/unit/openapi-examples.test.ts).
import { demoLine, demoPack } from "../seed/demo-catalog";

interface NamedExample {
  summary: string;
  value: unknown;
}

export interface OperationExample {
  /** Path parameters, by name. */
  params?: Record<string, string>;
  /** Query parameters as sent on the URL (strings). */
  query?: Record<string, string>;
  /** The JSON body. */
  body?: Record<string, unknown>;
  /** Examples of the 200 answer by name, the first being the usual one; null for an operation that never succeeds. */
  responses: Record<string, NamedExample> | null;
}

const ORDER_ID = "SVCAPI-BR-2N9C-7F3KQ1";
const PLACED_AT = "2026-01-15T09:30:00.000Z";
const BR_PACK = "SVCBR60";
const br60 = demoPack(BR_PACK);

const brInvoice = {
  orderCreated: true,
  orderId: ORDER_ID,
  trxid: "INV-10001",
  status: "processing",
  game: br60.line.slug,
  packName: br60.pack.packName,
  amountUsd: br60.pack.priceCents / 100,
  quantity: 1,
  userId: "5123456789",
  createdAt: PLACED_AT,
  livemode: true,
};

const completedInvoice = { ...brInvoice, status: "completed", durationSec: 2.4 };

/** A demo pack as GET /products lists it, in stock as seeded. */
function productExample(id: string) {
  const { line, pack } = demoPack(id);
  return {
    id,
    slug: line.slug,
    gameName: line.gameName,
    serviceName: line.productName,
    packName: pack.packName,
    kind: line.kind,
    price: pack.priceCents / 100,
    currency: "USD",
    orderable: true,
    ...(pack.codes === undefined ? {} : { stock: pack.codes }),
  };
}

const products = [productExample(BR_PACK), productExample("SVCGKINDIE")];

/** A demo line as GET /services lists it, with the first `serverIds` of its server choices. */
function serviceExample(slug: string, serverIds = 0) {
  const line = demoLine(slug);
  return {
    productName: line.productName,
    slug: line.slug,
    gameName: line.gameName,
    kind: line.kind,
    required: line.requiredFields,
    status: "active",
    ...(line.serverIdOptions
      ? { serverIdOptions: line.serverIdOptions.slice(0, serverIds).map(({ value, label }) => ({ value, label })) }
      : {}),
  };
}

/** Keyed by "METHOD /openapi/path" (path parameters in braces, as in /openapi.json). */
export const operationExamples: Record<string, OperationExample> = {
  "GET /services": {
    responses: {
      services: {
        summary: "Lines and their required fields",
        value: {
          success: true,
          services: [serviceExample("br"), serviceExample("gacha", 2)],
        },
      },
    },
  },
  "GET /products": {
    responses: { products: { summary: "A top-up pack and a game-key pack", value: { success: true, products } } },
  },
  "GET /catalog": {
    responses: { products: { summary: "The same payload as GET /products", value: { success: true, products } } },
  },
  "GET /my-ip": {
    responses: {
      ip: { summary: "The address allowlists are checked against", value: { success: true, ip: "203.0.113.7" } },
    },
  },
  "GET /balance": {
    responses: {
      balance: {
        summary: "The demo account's starting balance",
        value: { success: true, balanceUsd: 100, currency: "USD", livemode: true },
      },
    },
  },
  // Always 501 NOT_IMPLEMENTED (its example is the error's): wallets are funded in the bot.
  "POST /balance": { responses: null },
  "POST /orders": {
    body: { pid: BR_PACK, trxid: "INV-10001", userId: "5123456789" },
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
  "GET /orders/{orderId}": {
    params: { orderId: ORDER_ID },
    query: { wait: "10" },
    responses: {
      completed: {
        summary: "Completed (held up to 10 s until it finished)",
        value: { success: true, ...completedInvoice },
      },
    },
  },
  "GET /history": {
    query: { page: "1", pageSize: "20" },
    responses: {
      page: {
        summary: "Paged mode",
        value: { success: true, count: 1, orders: [completedInvoice], page: 1, pageSize: 20, total: 1, hasMore: false },
      },
    },
  },
  "GET /ledger": {
    query: { page: "1", pageSize: "50" },
    responses: {
      page: {
        summary: "A credit from the bot and an order's debit, newest first",
        value: {
          success: true,
          page: 1,
          pageSize: 50,
          total: 2,
          hasMore: false,
          entries: [
            {
              id: 2,
              type: "debit",
              amountUsd: -0.99,
              balanceAfterUsd: 99.01,
              orderId: ORDER_ID,
              reason: null,
              createdAt: PLACED_AT,
              livemode: true,
            },
            {
              id: 1,
              type: "credit",
              amountUsd: 100,
              balanceAfterUsd: 100,
              orderId: null,
              reason: "demo funding",
              createdAt: "2026-01-15T09:00:00.000Z",
              livemode: true,
            },
          ],
        },
      },
    },
  },
  "POST /brvvfy": {
    body: { playerId: "5123456789" },
    responses: {
      found: {
        summary: "The player exists",
        value: { success: true, valid: true, game: "br", playerId: "5123456789", nickname: "Player-6789" },
      },
    },
  },
  "POST /mobavfy": {
    body: { userId: "98765432", zoneId: "2021" },
    responses: {
      found: {
        summary: "The user exists in that zone",
        value: {
          success: true,
          valid: true,
          game: "moba",
          playerId: "98765432",
          zoneId: "2021",
          nickname: "Player-5432",
        },
      },
    },
  },
  "POST /rdmbr": {
    body: { playerId: "5123456789", code: "ABCD-EFGH-1234", trxid: "RDM-20001" },
    responses: {
      redeemed: {
        summary: "Redeemed",
        value: { success: true, redeemed: true, playerId: "5123456789", nickname: "Player-6789", redemptionId: 42 },
      },
    },
  },
  "GET /events": {
    query: { after: "41", limit: "100" },
    responses: {
      events: {
        summary: "One event after sequence 41",
        value: {
          success: true,
          events: [
            {
              id: "evt_x4Zq8tW0Yb2cD5eF7gH9iJ",
              sequence: 42,
              type: "order.completed",
              timestamp: "2026-01-15T09:30:02.400Z",
              livemode: true,
              data: completedInvoice,
            },
          ],
          hasMore: false,
          nextAfter: 42,
        },
      },
    },
  },
  "POST /webhooks/replay": {
    body: { after: 40, through: 42 },
    responses: {
      queued: { summary: "Two events re-sent to one endpoint", value: { success: true, events: 2, deliveries: 2 } },
    },
  },
};
