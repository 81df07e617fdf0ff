// Checks an order body against its game line (README: The API) and produces the normalised
// request that is stored and fingerprinted. Pure: the catalog row is read by the caller.
import crypto from "node:crypto";
import { ApiError } from "../http/errors";
import { MAX_QUANTITY, type OrderBody } from "../api-schemas/order-schemas";
import type { CatalogEntry } from "../catalog/catalog-record";
import { canonicalMetadata, storedMetadata, type OrderMetadata } from "./order-metadata";

export type { CatalogEntry } from "../catalog/catalog-record";

export interface NormalisedOrder {
  catalogId: string;
  trxid: string;
  idempotencyKey: string;
  userId?: string;
  zoneId?: string;
  serverId?: string;
  quantity: number;
  /** The request's price guard (maxPrice) in cents: place_order refuses a higher amount. */
  maxPriceCents?: number;
  /** The client's metadata as stored: null when none was sent (or `{}`). */
  metadata: OrderMetadata | null;
  /** The identifiers exactly as sent, which the invoice echoes (the fields above are canonical). */
  sent: { userId?: string; zoneId?: string; serverId?: string };
}

const IDENTIFIER_FIELDS = ["userId", "zoneId", "serverId"] as const;

function invalidRequest(message: string): ApiError {
  return new ApiError("INVALID_REQUEST", { extra: { details: [{ field: message.split(" ")[0], message }] } });
}

/** An order body with pid and trxid present, and the idempotency key every lookup of it uses. */
export type OrderRequest = OrderBody & { pid: string; trxid: string; idempotencyKey: string };

/**
 * The one check of pid and trxid, the fields that must be present before the catalog is even
 * consulted: the request, or the INVALID_REQUEST that a missing one answers (trxid named first).
 */
export function readOrderRequest(body: OrderBody): OrderRequest | ApiError {
  if (!body.trxid) return invalidRequest("trxid is required");
  if (!body.pid) return invalidRequest("pid is required");
  return { ...body, pid: body.pid, trxid: body.trxid, idempotencyKey: body.idempotencyKey ?? body.trxid };
}

function resolveServerId(input: string, options: CatalogEntry["serverIdOptions"]): string | undefined {
  const wanted = input.trim().toLowerCase();
  return options?.find(
    (option) =>
      option.value.toLowerCase() === wanted ||
      option.label.toLowerCase() === wanted ||
      option.aliases?.some((alias) => alias.toLowerCase() === wanted),
  )?.value;
}

/**
 * `realSupplierRequired`: a live order in production, which a top-up pack no real supplier carries
 * cannot take (lib/config/sandbox-serves-live-orders.ts).
 */
export function validateOrderRequest(
  request: OrderRequest,
  entry: CatalogEntry | undefined,
  options: { realSupplierRequired?: boolean } = {},
): NormalisedOrder {
  const { trxid, idempotencyKey } = request;
  if (!entry) throw new ApiError("UNKNOWN_PID");
  if (!entry.lineAvailable || !entry.lineOrderable) throw new ApiError("GAME_DISABLED");
  if (!entry.productActive) throw new ApiError("PRODUCT_DISABLED");

  const stockLine = entry.lineKind !== "topup";
  if (stockLine) {
    if (request.quantity !== undefined && (request.quantity < 1 || request.quantity > MAX_QUANTITY))
      throw new ApiError("INVALID_BODY", {
        extra: { details: [{ field: "quantity", message: `must be from 1 to ${MAX_QUANTITY}` }] },
      });
  } else {
    if (request.quantity !== undefined) throw new ApiError("QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD");
    if (!entry.supplierSku)
      throw new ApiError("INVALID_PRODUCT", { message: "INVALID PRODUCT: this pack cannot be fulfilled" });
    if (options.realSupplierRequired && !entry.realSupplier)
      throw new ApiError("INVALID_PRODUCT", {
        message: "INVALID PRODUCT: no supplier carries this pack for live orders",
      });
  }

  const order: NormalisedOrder = {
    catalogId: entry.catalogId,
    trxid,
    idempotencyKey,
    quantity: request.quantity ?? 1,
    maxPriceCents: request.maxPrice === undefined ? undefined : Math.round(request.maxPrice * 100),
    metadata: storedMetadata(request.metadata),
    sent: {},
  };
  // Stock lines take only pid, quantity and trxid; identifiers are kept only where the line asks.
  const required = new Set(entry.requiredFields.map((f) => f.field));
  for (const field of IDENTIFIER_FIELDS) {
    const value = request[field];
    if (required.has(field) && value === undefined) throw invalidRequest(`${field} is required for ${entry.lineSlug}`);
    if (value !== undefined && required.has(field)) {
      order[field] = value.trim();
      order.sent[field] = value;
    }
  }
  if (order.zoneId !== undefined && !/^\d{1,10}$/.test(order.zoneId)) throw invalidRequest("zoneId must be numeric");
  if (order.serverId !== undefined) {
    const resolved = resolveServerId(order.serverId, entry.serverIdOptions);
    if (!resolved) {
      const allowed = (entry.serverIdOptions ?? []).map((o) => o.value).join(", ");
      throw invalidRequest(`serverId must be one of: ${allowed}`);
    }
    order.serverId = resolved;
  }
  return order;
}

/**
 * What a replay must match: the product, the identifiers, the quantity and the metadata (its entries
 * sorted by key). An order without metadata hashes as it did before metadata existed, so the stored
 * fingerprints of older orders still match their replays.
 */
export function fingerprintOrder(
  order: Pick<NormalisedOrder, "catalogId" | "userId" | "zoneId" | "serverId" | "quantity"> & {
    metadata: OrderMetadata | null | undefined;
  },
): string {
  const fields: unknown[] = [
    order.catalogId,
    order.userId ?? null,
    order.zoneId ?? null,
    order.serverId ?? null,
    order.quantity,
  ];
  const metadata = canonicalMetadata(order.metadata ?? undefined);
  if (metadata) fields.push(metadata);
  const canonical = JSON.stringify(fields);
  return crypto.createHash("sha256").update(canonical).digest("hex");
}

/** The fingerprint of a body as sent, for comparing a duplicate with the stored original. */
export function fingerprintBody(request: OrderRequest, entry: CatalogEntry | undefined): string {
  const required = new Set(entry?.requiredFields.map((f) => f.field) ?? IDENTIFIER_FIELDS);
  const pick = (field: (typeof IDENTIFIER_FIELDS)[number]) =>
    required.has(field) ? request[field]?.trim() : undefined;
  const serverId = pick("serverId");
  return fingerprintOrder({
    catalogId: entry?.catalogId ?? request.pid,
    userId: pick("userId"),
    zoneId: pick("zoneId"),
    serverId:
      serverId === undefined ? undefined : (resolveServerId(serverId, entry?.serverIdOptions ?? null) ?? serverId),
    quantity: request.quantity ?? 1,
    metadata: request.metadata,
  });
}
