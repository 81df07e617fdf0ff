// POST /orders: idempotency (per account, forever), the order row with a snapshot of product, pack
// and price, the stock check and reservation of codes for key and gift-card lines (stock before the
// wallet), a conditional wallet debit with its ledger entry, the order event and the fulfilment
// job, all in place_order (prisma/functions/place_order.sql), one transaction. Nothing is written
// when any step fails.
//
// Two statements after the key's lookup, and no BEGIN/COMMIT: the placement's lookup (the catalog
// entry the body is validated against in Node, the key's existing order, the new order's id), then
// place_order, which reads the pack and its price itself: catalog_entry at the holder's price tier,
// the same pack_price() GET /products shows. The order keeps that price: a replay answers what was charged.
import type pg from "pg";
import { getPool, withTransaction } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { ApiError } from "../../http/errors";
import type { ApiCaller } from "../../auth/authenticate-api-key";
import { newEventId, wakeDispatchersNow } from "../../webhooks/sql/record-webhook-event";
import { buildInvoice, type Invoice } from "./build-invoice";
import type { OrderRecord } from "../order-record";
import { formatPublicOrderId } from "../public-order-id";
import {
  fingerprintBody,
  fingerprintOrder,
  validateOrderRequest,
  type CatalogEntry,
  type NormalisedOrder,
  type OrderRequest,
} from "../validate-order-request";
import { firstRow } from "../../db/first-row";
import { realSupplierRequired } from "../../config/sandbox-serves-live-orders";
import { recordOrderPlaced } from "../../observability/metrics";

export interface PlacementResult {
  invoice: Invoice;
  /** True when an earlier request with the same idempotency key made this order. */
  replayed: boolean;
}

class ConcurrentDuplicate extends Error {}

// The errors place_order raises itself (raise_api_error), with the answer's fields as the DETAIL.
const PLACEMENT_REFUSALS = {
  INSUFFICIENT_STOCK: 1,
  UNKNOWN_PID: 1,
  PRICE_ABOVE_MAX: 1,
  KEY_SPENDING_LIMIT: 1,
} as const;
type PlacementRefusal = keyof typeof PLACEMENT_REFUSALS;

type LookupRow = { gate?: string | null; entry: CatalogEntry | null; nextId?: number } & {
  [K in keyof OrderRecord]: OrderRecord[K] | null;
};

function readLookup({ gate, entry, nextId, ...order }: LookupRow) {
  return {
    gate,
    entry: entry ?? undefined,
    nextId,
    existing: order.id === null ? undefined : (order as OrderRecord),
  };
}

// The placement's lookup: the catalog entry at the caller's tier, an id reserved so the public id
// is written with the row, and the key's existing order (all its columns null when there is none),
// so a replay's invoice is built from exactly the values the original's was.
async function openPlacement(caller: ApiCaller, request: OrderRequest) {
  const { rows } = await getPool().query<LookupRow>(
    prepared(
      "place-open",
      sql`SELECT (SELECT row_to_json(e) FROM catalog_entry(catalog_id => ${request.pid}, price_tier_id => ${caller.priceTierId}::int) e) AS entry,
                 nextval(pg_get_serial_sequence('orders', 'id'))::int AS "nextId",
                 (order_record(o)).*
            FROM (SELECT 1) one
            LEFT JOIN orders o ON o.account_id = ${caller.accountId} AND o.idempotency_key = ${request.idempotencyKey}`,
    ),
  );
  return readLookup(firstRow(rows, "place-open"));
}

async function answerRepeat(
  caller: ApiCaller,
  request: OrderRequest,
  existing: OrderRecord,
  entry: CatalogEntry | undefined,
  client: Pick<pg.PoolClient, "query">,
): Promise<PlacementResult> {
  // Another key of the same account used this trxid: it is not this key's order to see.
  if (existing.apiKeyId !== caller.keyId) throw new ApiError("FORBIDDEN");
  if (existing.requestFingerprint !== fingerprintBody(request, entry)) throw new ApiError("IDEMPOTENCY_MISMATCH");
  return { invoice: await buildInvoice(existing, client), replayed: true };
}

type PlacedRow = { [K in keyof OrderRecord]: OrderRecord[K] | null } & {
  outcome: "placed" | "in_flight" | "placed_meanwhile";
  deliveries: number;
};

// A live top-up's supplier is chosen when it is fulfilled (lib/fulfilment/sql/route-order.ts); a
// test order's supplier and stock use are decided by place_order from the account's mode.
async function writeOrder(caller: ApiCaller, order: NormalisedOrder, id: number, publicId: string) {
  try {
    const { rows } = await getPool().query<PlacedRow>(
      prepared(
        "place-order",
        sql`SELECT p.outcome, p.deliveries, (p.placed).*
              FROM place_order(
                     order_id => ${id},
                     public_id => ${publicId},
                     account_id => ${caller.accountId},
                     api_key_id => ${caller.keyId},
                     trxid => ${order.trxid},
                     idempotency_key => ${order.idempotencyKey},
                     request_fingerprint => ${fingerprintOrder(order)},
                     catalog_id => ${order.catalogId},
                     quantity => ${order.quantity},
                     user_id => ${order.userId ?? null}::text,
                     zone_id => ${order.zoneId ?? null}::text,
                     server_id => ${order.serverId ?? null}::text,
                     sent_user_id => ${order.sent.userId ?? null}::text,
                     sent_zone_id => ${order.sent.zoneId ?? null}::text,
                     sent_server_id => ${order.sent.serverId ?? null}::text,
                     low_event_id => ${newEventId()},
                     max_price_cents => ${order.maxPriceCents ?? null}::bigint,
                     metadata => ${order.metadata === null ? null : JSON.stringify(order.metadata)}::jsonb) p`,
      ),
    );
    return firstRow(rows, "place_order"); // one row whatever the outcome
  } catch (error) {
    const { code, constraint, message, detail } = error as {
      code?: string;
      constraint?: string;
      message?: string;
      detail?: string;
    };
    // The key's original committed between our snapshot and our insert: answer it as a replay.
    if (code === "23505" && constraint === "orders_account_id_idempotency_key_key") throw new ConcurrentDuplicate();
    // A refusal before the wallet (too few free codes, the price above maxPrice, the key's daily
    // limit) or the pack gone since the lookup: the statement failed itself, so nothing was written
    // and the trxid stays free, whatever the balance.
    if (code === "P0001" && message !== undefined && message in PLACEMENT_REFUSALS) {
      throw new ApiError(message as PlacementRefusal, { extra: detail ? JSON.parse(detail) : undefined });
    }
    if (code === "P0001" && message === "FULFILMENT_JOB_TAKEN") {
      throw new Error(
        `order ${id} not placed: its fulfilment job's key is held by a job left from earlier (a restored or reset database?)`,
      );
    }
    throw error;
  }
}

async function attemptPlacement(caller: ApiCaller, request: OrderRequest): Promise<PlacementResult> {
  const opened = await openPlacement(caller, request);
  if (opened.existing) return answerRepeat(caller, request, opened.existing, opened.entry, getPool());

  const order = validateOrderRequest(request, opened.entry, {
    realSupplierRequired: realSupplierRequired(caller.livemode),
  });
  const id = opened.nextId!;
  const placed = await writeOrder(caller, order, id, formatPublicOrderId(opened.entry!.lineCode, id));
  const { outcome, deliveries, ...columns } = placed;
  // The gate wrote nothing in these two cases. The original request holds the key's lock: it
  // has not answered yet.
  if (outcome === "in_flight") throw new ApiError("DUPLICATE_IN_FLIGHT");
  if (outcome === "placed_meanwhile") throw new ConcurrentDuplicate();
  const inserted = columns as OrderRecord;
  recordOrderPlaced(inserted);
  wakeDispatchersNow(deliveries);
  // A new order is processing or cancelled, never completed: its invoice has no codes to read.
  return { invoice: await buildInvoice(inserted), replayed: false };
}

/**
 * The earlier answer for a request whose idempotency key already has an order, without placing
 * anything; undefined when the key has none. Used while a switch stops new orders: a client
 * recovering a lost answer still gets it. The same rules as a placement apply to the repeat
 * (FORBIDDEN from another key, IDEMPOTENCY_MISMATCH for another body, DUPLICATE_IN_FLIGHT while the
 * original still runs), and the catalog's current state does not matter.
 */
export async function findOrderReplay(caller: ApiCaller, request: OrderRequest): Promise<PlacementResult | undefined> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<LookupRow>(
      prepared(
        "place-replay-lookup",
        sql`SELECT claim_order_key(account_id => ${caller.accountId}::int, idempotency_key => ${request.idempotencyKey}::text) AS gate,
                   (SELECT row_to_json(e) FROM catalog_entry(catalog_id => ${request.pid}, price_tier_id => ${caller.priceTierId}::int) e) AS entry,
                   (order_record(o)).*
              FROM (SELECT 1) one
              LEFT JOIN orders o ON o.account_id = ${caller.accountId} AND o.idempotency_key = ${request.idempotencyKey}`,
      ),
    );
    const found = readLookup(firstRow(rows, "place-replay-lookup"));
    if (found.gate === "in_flight") throw new ApiError("DUPLICATE_IN_FLIGHT");
    if (!found.existing) return undefined;
    return answerRepeat(caller, request, found.existing, found.entry, client);
  });
}

/** Places the order, or answers the earlier one when its idempotency key already has one. */
export async function placeOrder(caller: ApiCaller, request: OrderRequest): Promise<PlacementResult> {
  try {
    return await attemptPlacement(caller, request);
  } catch (error) {
    if (error instanceof ConcurrentDuplicate) return attemptPlacement(caller, request);
    throw error;
  }
}
