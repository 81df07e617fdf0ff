// Webhook events (GET /events, POST /webhooks/replay, and the OpenAPI document's `webhooks`).
// `data` of each event has the shape of the API's own answers: the Invoice for order events.
import { z } from "zod";
import { livemode } from "./fields";
import { Invoice, queryInt } from "./order-schemas";
import { Product } from "./read-schemas";

export const EventsQuery = z.object({
  after: queryInt(
    0,
    999_999_999_999_999,
    "Return events with a sequence number greater than this (default 0: from the first)",
    15,
  ),
  limit: queryInt(1, 500, "At most this many events (1-500, default 100)", 4),
});

const OrderEventData = Invoice.omit({ codes: true })
  .extend({
    cancelledBy: z
      .object({
        by: z.literal("reseller"),
        via: z.enum(["api", "bot"]).meta({ description: "POST /orders/{orderId}/cancel, or the bot's /cancel" }),
      })
      .optional()
      .meta({
        description: "On `order.cancelled` when you cancelled the order yourself (`error` CANCELLED BY RESELLER)",
      }),
  })
  .meta({
    id: "OrderEventData",
    description: "The order's Invoice as GET /orders/{orderId} answers it, without `codes` (fetch those from the API)",
  });

const WalletEventData = z
  .object({
    amountUsd: z.number().meta({ description: "The adjustment, USD (positive)" }),
    balanceUsd: z.number().meta({ description: "Balance after it, USD" }),
    currency: z.literal("USD"),
    note: z.string().nullable().meta({ description: "The admin's note or reason" }),
  })
  .meta({ id: "WalletEventData" });

const BalanceLowData = z
  .object({
    balanceUsd: z.number(),
    currency: z.literal("USD"),
    thresholdUsd: z.number().meta({ description: "The threshold set with /lowbalance" }),
  })
  .meta({ id: "BalanceLowData" });

const ProductEventData = Product.omit({ stock: true }).meta({
  id: "ProductEventData",
  description:
    "The pack as GET /products/{id} answers it to your account at the time of the event (price at your price tier), without `stock` (read it from the API)",
});

const EndpointTestData = z
  .object({ endpointId: z.number().int(), url: z.string(), message: z.string() })
  .meta({ id: "EndpointTestData" });

/** Each event type with its data and what it means. */
export const WEBHOOK_EVENT_DOCS = {
  "order.completed": { data: OrderEventData, summary: "An order was delivered (status completed)" },
  "order.cancelled": {
    data: OrderEventData,
    summary:
      "An order was cancelled by the supplier, an admin or you (`cancelledBy`); `refunded` says whether the charge went back",
  },
  "order.pending": {
    data: OrderEventData,
    summary: "The supplier's outcome is unknown; it is being asked again (status pending)",
  },
  "order.flagged": {
    data: OrderEventData,
    summary:
      "Not settled in time; an admin will complete it or cancel and refund it (the invoice says `awaitingAdmin: true` until then)",
  },
  "order.refund_requested": {
    data: OrderEventData,
    summary: "You asked for the refund of a completed order; `refundRequest.status` is requested",
  },
  "order.refunded": {
    data: OrderEventData,
    summary: "An admin refunded the order, all or part (`refundRequest.refundedUsd`), to your wallet",
  },
  "order.refund_declined": {
    data: OrderEventData,
    summary: "An admin declined the order's refund request (`refundRequest.note` may say why); nothing moved",
  },
  "wallet.credited": { data: WalletEventData, summary: "An admin credited your wallet" },
  "wallet.debited": { data: WalletEventData, summary: "An admin made a correcting deduction from your wallet" },
  "balance.low": {
    data: BalanceLowData,
    summary: "Your balance fell below the threshold you set in the bot (/lowbalance)",
  },
  "product.updated": {
    data: ProductEventData,
    summary:
      "What your account sees of a pack changed: its name, its price for you (list price, price list or price tier), or whether you can order it (switched off or on, its line closed or opened, its stock ran out or came back; `unorderableReason` says why not). At most one event per pack per look of the worker (every few seconds), however many changes it saw",
  },
  "endpoint.test": { data: EndpointTestData, summary: "Sent by /webhook test to that endpoint only" },
} as const;

const WebhookEventView = z
  .object({
    id: z.string().meta({
      description: "The event id: the webhook-id header of every delivery of it",
      example: "evt_x4Zq8tW0Yb2cD5eF7gH9iJ",
    }),
    sequence: z.number().int().meta({ description: "Per account, from 1, without gaps" }),
    type: z.enum(Object.keys(WEBHOOK_EVENT_DOCS) as [keyof typeof WEBHOOK_EVENT_DOCS]),
    timestamp: z.string().meta({ description: "When the event happened (ISO 8601)" }),
    livemode,
    data: z.union([OrderEventData, WalletEventData, BalanceLowData, ProductEventData, EndpointTestData]),
  })
  .meta({ id: "WebhookEvent" });

export const EventsResponse = z.object({
  success: z.literal(true),
  events: z.array(WebhookEventView),
  hasMore: z.boolean(),
  nextAfter: z
    .number()
    .int()
    .meta({ description: "Pass as `after` for the next page (the last sequence returned, or your `after`)" }),
});

export const ReplayBody = z
  .object({
    after: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .meta({ description: "Re-send events with a sequence number greater than this" }),
    through: z.number().int().nonnegative().optional().meta({ description: "... up to and including this one" }),
    eventIds: z.array(z.string().max(64)).min(1).max(1000).optional().meta({ description: "Or re-send these events" }),
    endpointId: z
      .number()
      .int()
      .positive()
      // webhook_endpoints.id is an int column: a wider id is a 400 here, not an overflow in the query.
      .max(2_147_483_647)
      .optional()
      .meta({ description: "Only to this endpoint (default: every enabled endpoint subscribed)" }),
  })
  .refine((body) => body.after !== undefined || body.through !== undefined || body.eventIds !== undefined, {
    message: "give a sequence range (after, through) or eventIds",
  });

export const ReplayResponse = z.object({
  success: z.literal(true),
  events: z.number().int().meta({ description: "Events matched (at most 1000 per call)" }),
  deliveries: z.number().int().meta({ description: "Deliveries queued" }),
});
