// POST /orders body and the Invoice. Identifier fields accept a JSON string or a
// non-negative integer (a zoneId sent as 12345 is read as "12345"); anything else is INVALID BODY.
// `pid` and `trxid` sent as null, "" or blanks count as missing (INVALID REQUEST, like absent ones).
import { z } from "zod";
import { blankAsMissing, echoedIdentifier, identifier, livemode, NO_CONTROL_CHARACTERS, plainText } from "./fields";
import { ORDER_REFERENCE_KINDS } from "../orders/parse-order-reference";
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_VALUE_LENGTH } from "../orders/order-metadata";

export const MAX_QUANTITY = 10;
const MAX_PRICE_USD = 1_000_000;

export const orderBodyAliases = {
  pid: ["PID"],
  trxid: ["trxId", "idtrx", "idTrx"],
  userId: ["userID"],
  idempotencyKey: ["idempotency"],
};

const METADATA_LIMITS =
  `at most ${METADATA_MAX_KEYS} keys of 1 to ${METADATA_MAX_KEY_LENGTH} characters, ` +
  `string values of at most ${METADATA_MAX_VALUE_LENGTH} characters, no control characters`;

const metadataKey = z
  .string()
  .min(1)
  .max(METADATA_MAX_KEY_LENGTH)
  .regex(NO_CONTROL_CHARACTERS, "must not contain control characters");

const metadataValue = z
  .string({ error: "must be a string" })
  .max(METADATA_MAX_VALUE_LENGTH, `must be at most ${METADATA_MAX_VALUE_LENGTH} characters`)
  .regex(NO_CONTROL_CHARACTERS, "must not contain control characters");

/** The client's own references: a flat object of strings, stored with the order and echoed. */
const OrderMetadata = z
  .record(metadataKey, metadataValue, {
    // A key that fails its check is named in the issue's path; say which limit it broke.
    error: (issue) =>
      issue.code === "invalid_key"
        ? `keys are 1 to ${METADATA_MAX_KEY_LENGTH} characters without control characters`
        : issue.code === "invalid_type"
          ? `must be an object of strings (${METADATA_LIMITS})`
          : undefined,
  })
  .refine((metadata) => Object.keys(metadata).length <= METADATA_MAX_KEYS, `at most ${METADATA_MAX_KEYS} keys`)
  // zod's meta type lists no JSON Schema keywords; zod-to-openapi writes these over the generated schema.
  .meta({
    maxProperties: METADATA_MAX_KEYS,
    propertyNames: { minLength: 1, maxLength: METADATA_MAX_KEY_LENGTH, pattern: NO_CONTROL_CHARACTERS.source },
  } as never);

/** A player identifier the line may require: missing, null or blank is INVALID REQUEST where it does. */
function lineIdentifier(description: string, max?: number) {
  return z.preprocess(
    blankAsMissing,
    echoedIdentifier(
      `${description}; echoed in the invoice as sent. Missing, null or blank is INVALID REQUEST where the line requires it`,
      max,
    ).optional(),
  );
}

export const OrderBody = z.object({
  pid: z.preprocess(blankAsMissing, plainText(64).optional()).meta({
    description: "Catalog id from GET /products (alias PID). Required: missing, null or empty is INVALID REQUEST",
  }),
  trxid: z.preprocess(blankAsMissing, identifier("").optional()).meta({
    description:
      "Your id for this purchase (aliases trxId, idtrx, idTrx). Required: missing, null or empty is INVALID REQUEST. A new purchase needs a new trxid",
  }),
  userId: lineIdentifier("Player id / uid (alias userID), for lines that require it"),
  zoneId: lineIdentifier("Numeric zone, for lines that require it"),
  serverId: lineIdentifier("Server value or label from serverIdOptions", 32),
  // Bounded in validateOrderRequest, once the line is known: any quantity on a top-up line is
  // QUANTITY ONLY FOR GAMEKEY OR GIFTCARD, whatever its value. zod-to-openapi writes the bounds.
  quantity: z
    .number()
    .int()
    .optional()
    .meta({
      description: `Game-key and gift-card lines only: 1 to ${MAX_QUANTITY} codes (default 1); on other lines, QUANTITY ONLY FOR GAMEKEY OR GIFTCARD`,
      minimum: 1,
      maximum: MAX_QUANTITY,
    } as never),
  maxPrice: z
    .number()
    .positive()
    .max(MAX_PRICE_USD)
    .refine((usd) => Math.abs(usd * 100 - Math.round(usd * 100)) < 1e-6, "maxPrice has at most two decimals")
    .optional()
    .meta({
      description:
        "The most this order may cost, in USD, compared with what it would charge (the invoice's amountUsd: unit price x quantity). " +
        "When the price is higher, nothing is stored or charged, the answer is 409 PRICE_ABOVE_MAX with the current price, and the trxid stays free",
      example: 0.99,
    }),
  idempotencyKey: z.preprocess(blankAsMissing, plainText(128).optional()).meta({
    description:
      "Alias idempotency. When omitted (or null or empty), trxid is the idempotency key. Scoped to your account, kept forever",
  }),
  metadata: z
    .preprocess((value) => (value === null ? undefined : value), OrderMetadata.optional())
    .meta({
      description:
        `Your own references (your customer, cart, ...): ${METADATA_LIMITS}; beyond them, 400 INVALID BODY naming the field. ` +
        "Stored with the order and echoed (the same keys and values; key order is not kept) in its invoice, GET /orders/{orderId}, GET /history and order webhook events. " +
        "Part of the idempotency fingerprint (key order aside): a repeat with other metadata is 409 IDEMPOTENCY_MISMATCH. " +
        "Omitted, null and {} all mean none, and an order without metadata has no `metadata` field",
      example: { customerId: "cus_8812", cartId: "cart-2026-0042" },
    }),
});
export type OrderBody = z.output<typeof OrderBody>;

const RefundRequestView = z
  .object({
    status: z.enum(["requested", "refunded", "declined"]).meta({
      description:
        "requested: waiting for an admin; refunded: `refundedUsd` went back to the wallet; declined: nothing did",
    }),
    reason: z.string().meta({ description: "Your reason, as sent" }),
    requestedAt: z.string(),
    decidedAt: z.string().optional().meta({ description: "When an admin decided, once decided" }),
    refundedUsd: z
      .number()
      .optional()
      .meta({ description: "Refunded: the amount returned, USD (all or part of `amountUsd`)" }),
    note: z.string().optional().meta({ description: "The admin's note on the decision, when there is one" }),
  })
  .meta({ id: "RefundRequest" });

export const Invoice = z
  .object({
    orderCreated: z.boolean().meta({ description: "false for an order cancelled at placement (INSUFFICIENT BALANCE)" }),
    orderId: z
      .string()
      .meta({ description: "Public id SVCAPI-<line code>-<base36>-<hash>", example: "SVCAPI-BR-0K3M9QZT-7F3KQ1" }),
    trxid: z.string(),
    status: z.enum(["pending", "processing", "completed", "cancelled"]),
    game: z.string().meta({ description: "Line slug" }),
    packName: z.string().meta({ description: "The pack's name when the order was placed" }),
    pid: z.string().meta({
      description: "The pack's catalog id, as ordered: GET /products/{id} reads the pack, even once it is switched off",
      example: "SVCBR60",
    }),
    amountUsd: z.number().meta({ description: "Total charged (unit price x quantity), USD" }),
    quantity: z.number().int(),
    userId: z.string().optional().meta({ description: "As sent in the order, on lines that take it" }),
    zoneId: z.string().optional().meta({ description: "As sent in the order, on lines that take it" }),
    serverId: z
      .string()
      .optional()
      .meta({ description: "As sent in the order (a label such as NA stays NA), on lines that take it" }),
    awaitingAdmin: z.literal(true).optional().meta({
      description:
        "Present (true) while an admin must settle the order: the supplier's outcome was not settled in time, and an admin will complete it or cancel and refund it. The status stays pending or processing meanwhile; absent on every other order",
    }),
    error: z.string().optional().meta({ description: "Present on cancelled orders: why" }),
    refunded: z.boolean().optional().meta({
      description:
        "Present on cancelled orders: true when the charge was returned to the wallet, false when nothing was charged",
    }),
    codes: z
      .array(z.string())
      .optional()
      .meta({ description: "Game-key and gift-card codes, on completed orders, shown only to their owner" }),
    durationSec: z
      .number()
      .optional()
      .meta({ description: "Seconds from placement to completion or cancellation, on finished orders" }),
    metadata: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: "Your metadata from POST /orders (key order not kept); absent when the order has none" }),
    refundRequest: RefundRequestView.optional().meta({
      description: "Present on a completed order once you asked for its refund (POST /orders/{orderId}/refund-request)",
    }),
    createdAt: z.string(),
    livemode,
  })
  .meta({ id: "Invoice" });

export const InvoiceResponse = Invoice.extend({ success: z.literal(true) });

/**
 * A whole-number query parameter: read from the query's text, documented as the integer it is (with
 * its bounds), so generated clients send numbers and validators check the range.
 */
export const queryInt = (min: number, max: number, description: string, digits = 6) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,${digits}}$`), "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    // zod's meta type lists no JSON Schema keywords; zod-to-openapi writes these over the generated schema.
    .meta({ type: "integer", minimum: min, maximum: max } as never)
    .optional()
    .meta({ description });

export const HistoryQuery = z.object({
  limit: queryInt(1, 200, "Simple mode: how many of your newest orders (1-200, default 30)"),
  page: queryInt(1, 100_000, "Paged mode: page number from 1; passing it switches to paged mode"),
  pageSize: queryInt(1, 50, "Paged mode: orders per page (1-50, default 20)"),
});

export const HistoryResponse = z.object({
  success: z.literal(true),
  count: z.number().int(),
  orders: z.array(Invoice),
  page: z.number().int().optional(),
  pageSize: z.number().int().optional(),
  total: z.number().int().optional().meta({ description: "Paged mode: all your orders" }),
  hasMore: z.boolean().optional().meta({ description: "Paged mode: whether a next page exists" }),
});

export const OrderWaitQuery = z.object({
  wait: queryInt(0, 30, "Seconds (up to 30) to hold the answer until the order is completed or cancelled"),
  by: z.enum(ORDER_REFERENCE_KINDS).optional().meta({
    description:
      "Read `orderId` as this kind of reference only (`id`: the order number). Without it, the first kind that matches wins: publicId, then trxid, then idempotencyKey, then the order number",
  }),
});

/** The longest statement range: a year, leap years included (docs/api.md: The wallet statement). */
export const MAX_STATEMENT_DAYS = 366;

// An instant with an explicit offset, or a bare date meaning 00:00 UTC that day. A local time
// without an offset is refused: whose midnight it means would be a guess.
const statementBound = (description: string) =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], {
      error: "must be an ISO-8601 date (2026-10-01) or an instant with an offset (2026-10-01T00:00:00Z)",
    })
    .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value))
    .optional()
    .meta({ description });

export const LedgerQuery = z
  .object({
    page: queryInt(1, 100_000, "Page number from 1 (default 1)"),
    pageSize: queryInt(1, 500, "Entries per page (1-500, default 50)"),
    format: z.enum(["json", "csv"]).optional().meta({
      description: "csv: the page as CSV, or with from and to the whole range as one streamed statement",
    }),
    from: statementBound(
      "With format=csv and to: the statement's start, inclusive (a bare date is 00:00 UTC that day)",
    ),
    to: statementBound(
      `With format=csv and from: the statement's end, exclusive (at most ${MAX_STATEMENT_DAYS} days after from)`,
    ),
  })
  .superRefine((query, ctx) => {
    if (query.from === undefined && query.to === undefined) return;
    if (query.from === undefined || query.to === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [query.from === undefined ? "from" : "to"],
        message: "a statement needs both from and to",
      });
      return;
    }
    if (query.format !== "csv")
      ctx.addIssue({ code: "custom", path: ["format"], message: "from and to select a CSV statement: add format=csv" });
    if (query.page !== undefined || query.pageSize !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [query.page !== undefined ? "page" : "pageSize"],
        message: "a statement is not paged: drop page and pageSize",
      });
    }
    if (query.to.getTime() <= query.from.getTime())
      ctx.addIssue({ code: "custom", path: ["to"], message: "to must be after from" });
    else if (query.to.getTime() - query.from.getTime() > MAX_STATEMENT_DAYS * 86_400_000) {
      ctx.addIssue({ code: "custom", path: ["to"], message: `a statement covers at most ${MAX_STATEMENT_DAYS} days` });
    }
  });

/** The streamed statement CSV (a whole document), for the OpenAPI document's text/csv answer. */
export const LedgerStatementCsv = z.string().meta({
  description:
    "Header `id,type,amount_usd,balance_after_usd,order_id,reason,created_at`; then an `opening_balance` line (balance_after_usd " +
    "= the balance at from, created_at = from); every entry with from <= created_at < to, oldest first; then a `closing_balance` " +
    "line (balance_after_usd = opening + the sum of the entries' amount_usd, created_at = to). CRLF line ends; every cell below the header is quoted.",
  example:
    'id,type,amount_usd,balance_after_usd,order_id,reason,created_at\r\n"","opening_balance","","10.00","","","2026-10-01T00:00:00.000Z"\r\n' +
    '"42","debit","-0.99","9.01","SVCAPI-BR-16-K7Q2ZD","","2026-10-03T08:15:00.000Z"\r\n"","closing_balance","","9.01","","","2026-11-01T00:00:00.000Z"\r\n',
});

export const LedgerResponse = z.object({
  success: z.literal(true),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  hasMore: z.boolean(),
  entries: z.array(
    z.object({
      id: z.number().int().meta({ description: "The entry's number within your account: 1, 2, 3... in posting order" }),
      type: z.enum(["credit", "debit", "refund", "adjustment"]),
      amountUsd: z.number(),
      balanceAfterUsd: z.number(),
      orderId: z.string().nullable(),
      reason: z.string().nullable(),
      createdAt: z.string(),
      livemode,
    }),
  ),
});

/** The reference kind alone, for the operations on one order besides GET. */
export const OrderReferenceQuery = OrderWaitQuery.pick({ by: true });

export const RefundRequestBody = z.object({
  reason: plainText(500).meta({
    description: "Why you ask for the refund (up to 500 characters); the admin who decides reads it",
  }),
});

export const OrderIdParams = z.object({
  orderId: z.string().meta({
    description:
      "The public id (SVCAPI-...), your trxid, your idempotency key, or the order number (the public id's third part read as a base36 number: SVCAPI-BR-0K3M9QZT-7F3KQ1 is 43754451689). When it matches several of your orders, the first kind that matches wins: publicId, then trxid (newest order with it), then idempotencyKey, then the order number; the response header Order-Matched-By says which",
  }),
});
