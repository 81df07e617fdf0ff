// Response shapes of the read endpoints. They document the API in the
// OpenAPI document; the handlers build exactly these objects.
import { z } from "zod";
import { livemode } from "./fields";
import { errorCatalogue, type ErrorKey } from "../http/errors";
import { UNORDERABLE_REASONS } from "../catalog/product-view";

const ERROR_CODES = Object.keys(errorCatalogue) as [ErrorKey, ...ErrorKey[]];

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error: z
      .string()
      .meta({ description: "The documented error string (a human-readable message for access errors); may be shown" }),
    code: z.enum(ERROR_CODES).meta({
      description:
        "Stable machine code, present on every failure: switch on it. Each code is described in `x-error-codes` at the top of this document",
    }),
    details: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({
        description: "INVALID_BODY, INVALID_REQUEST (and a malformed INVALID_CODE): each field that failed and why",
      }),
    restrictedUntil: z
      .string()
      .optional()
      .meta({ description: "ACCOUNT_RESTRICTED: until when (ISO 8601)", example: "2026-12-01T00:00:00.000Z" }),
    priceUsd: z
      .number()
      .optional()
      .meta({ description: "PRICE_ABOVE_MAX: the pack's current unit price for you, USD", example: 1.09 }),
    amountUsd: z.number().optional().meta({
      description: "PRICE_ABOVE_MAX: what the order would cost now (unit price x quantity), USD",
      example: 1.09,
    }),
    limitUsd: z
      .number()
      .optional()
      .meta({ description: "KEY_SPENDING_LIMIT: the key's daily limit, USD", example: 50 }),
    spentTodayUsd: z
      .number()
      .optional()
      .meta({ description: "KEY_SPENDING_LIMIT: what the key's orders charged today (UTC), USD", example: 49.5 }),
    resetsAt: z.string().optional().meta({
      description:
        "KEY_SPENDING_LIMIT: when the key's day ends and its spending counts from zero (ISO 8601, UTC midnight)",
      example: "2026-12-02T00:00:00.000Z",
    }),
    maxBytes: z
      .number()
      .int()
      .optional()
      .meta({ description: "PAYLOAD_TOO_LARGE: the largest body accepted, in bytes", example: 16384 }),
  })
  .meta({ id: "Error" });

const Service = z
  .object({
    productName: z.string(),
    slug: z.string().meta({ example: "br" }),
    gameName: z.string(),
    kind: z.enum(["topup", "gamekey", "giftcard"]),
    required: z.array(z.object({ field: z.string(), label: z.string() })),
    status: z
      .enum(["active", "disabled"])
      .meta({ description: "disabled: listed but not taking orders (GAME DISABLED)" }),
    serverIdOptions: z
      .array(z.object({ value: z.string(), label: z.string() }))
      .optional()
      .meta({ description: "Allowed serverId values; labels are also accepted on POST /orders" }),
  })
  .meta({ id: "Service" });

export const ServicesResponse = z.object({ success: z.literal(true), services: z.array(Service) });

export const Product = z
  .object({
    id: z.string().meta({ description: "Catalog id, passed as pid", example: "SVCBR60" }),
    slug: z.string(),
    gameName: z.string(),
    serviceName: z.string(),
    packName: z.string(),
    kind: z.enum(["topup", "gamekey", "giftcard"]),
    price: z.number().meta({
      description:
        "USD, the calling key's unit price (its account's price tier, else the list price): what POST /orders charges. A switched-off pack keeps its last price",
      example: 0.99,
    }),
    currency: z.literal("USD"),
    orderable: z.boolean().meta({
      description: "false when POST /orders would refuse the pack now; `unorderableReason` says why",
    }),
    unorderableReason: z.enum(UNORDERABLE_REASONS).optional().meta({
      description:
        "Present when `orderable` is false: the code POST /orders answers for the pack. GAME_DISABLED: its line takes no orders (or is no longer listed); PRODUCT_DISABLED: the pack is switched off; INVALID_PRODUCT: for a live key in production, no real supplier carries the top-up pack; INSUFFICIENT_STOCK: a game-key or gift-card pack has no codes in stock",
    }),
    stock: z.number().int().optional().meta({ description: "Codes in stock; game-key and gift-card packs only" }),
    updatedAt: z.string().meta({
      description:
        "When what you can read of the pack last changed (ISO 8601, to the millisecond): its name, its list price or a price tier's price for it, it or its line switched on or off, its stock running out or back, a supplier's offer of it. The value to pass as `updatedSince`",
      example: "2026-01-15T09:30:00.000Z",
    }),
  })
  .meta({ id: "Product" });

export const ProductsQuery = z.object({
  updatedSince: z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], {
      error: "must be an ISO-8601 instant with an offset (2026-10-01T00:00:00Z) or a date (2026-10-01)",
    })
    .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value))
    .optional()
    .meta({
      description:
        "Only the packs whose `updatedAt` is at or after this instant (the boundary included; read to the millisecond; a bare date is 00:00 UTC), switched-off ones included (`orderable: false`). Pass the largest `updatedAt` you have read: a pack answered again is unchanged since",
    }),
});

export const ProductsResponse = z.object({ success: z.literal(true), products: z.array(Product) });

export const ProductIdParams = z.object({
  id: z.string().meta({ description: "The pack's catalog id (`id` in GET /products, `pid` on POST /orders)" }),
});

export const ProductResponse = Product.extend({ success: z.literal(true) });

export const BalanceResponse = z
  .object({ success: z.literal(true), balanceUsd: z.number(), currency: z.literal("USD"), livemode })
  .meta({ id: "Balance" });

export const MyIpResponse = z.object({ success: z.literal(true), ip: z.string().meta({ example: "203.0.113.7" }) });
