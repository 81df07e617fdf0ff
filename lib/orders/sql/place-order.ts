// POST /orders: idempotency (per account, forever), the order row with a snapshot of product, pack
// and price, the stock check and reservation of codes for key and gift-card lines (stock before the
// wallet), a conditional wallet debit with its ledger entry, the order event and the fulfilment
// job, all in place_order (prisma/functions/place_order.sql), one transaction. Nothing is written
// when any step fails.
//
// Two round trips and no BEGIN/COMMIT: the lookup (under POST /orders it is the API key's own,
// placementKeyLookup), the body validated against its catalog entry in Node, then place_order.
// The catalog entry's price is the caller's (catalog_entry at the holder's price tier, the same
// pack_price() GET /products shows), and the order keeps it: a replay answers what was charged.
import type pg from "pg";
import { getPool, withTransaction } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import { ApiError } from "../../http/errors";
import type { ApiCaller, KeyLookup } from "../../auth/authenticate-api-key";
import type { OrderBody } from "../../api-schemas/order-schemas";
import { assertPostingAmount } from "../../wallet/sql/post-ledger-entry";
import { newEventId, wakeDispatchersNow } from "../../webhooks/sql/record-webhook-event";
import { buildInvoice, type Invoice } from "./build-invoice";
import type { OrderRecord } from "../order-record";
import { formatPublicOrderId } from "../public-order-id";
import {
  fingerprintBody,
  fingerprintOrder,
  requireOrderKeys,
  validateOrderRequest,
  type CatalogEntry,
} from "../validate-order-request";
import { firstRow } from "../../db/first-row";
import { sandboxServesLiveOrders } from "../../config/sandbox-serves-live-orders";
import { recordOrderPlaced } from "../../observability/metrics";

export interface PlacementResult {
  invoice: Invoice;
  /** True when an earlier request with the same idempotency key made this order. */
  replayed: boolean;
}

class ConcurrentDuplicate extends Error {}

/** What the lookup before a placement reads: the pid's catalog entry and the order's id, reserved in advance. */
export interface PlacementPrefetch {
  entry: CatalogEntry | null;
  nextId: number;
  /** Whether the idempotency key already has an order (then the placement reads it, to answer the replay). */
  existing: boolean;
}

/**
 * POST /orders' key lookup: the caller (api_caller), and in the same statement its placement's
 * lookup. The order's id is reserved in advance so the public id is written with the row. Undefined
 * when the body lacks pid or trxid: the placement refuses it before any SQL.
 */
export function placementKeyLookup(body: OrderBody): KeyLookup | undefined {
  const { pid, trxid } = body;
  if (!pid || !trxid) return undefined;
  const idempotencyKey = body.idempotencyKey ?? trxid;
  return async (keyHash) => {
    const { rows } = await getPool().query<ApiCaller & PlacementPrefetch>(
      prepared(
        "auth-key-lookup+place-open",
        sql`SELECT c.*,
                   (SELECT row_to_json(e) FROM catalog_entry(catalog_id => ${pid}, price_tier_id => c."priceTierId") e) AS entry,
                   nextval(pg_get_serial_sequence('orders', 'id'))::int AS "nextId",
                   EXISTS (SELECT 1 FROM orders o
                            WHERE o.account_id = c."accountId" AND o.idempotency_key = ${idempotencyKey}) AS existing
              FROM api_caller(key_hash => ${keyHash}) c`,
      ),
    );
    const [row] = rows;
    if (!row) return undefined;
    const { entry, nextId, existing, ...caller } = row;
    return { caller, extra: { entry, nextId, existing } satisfies PlacementPrefetch };
  };
}

type LookupRow = { locked?: boolean; entry: CatalogEntry | null; nextId?: number } & {
  [K in keyof OrderRecord]: OrderRecord[K] | null;
};

function readLookup({ locked, entry, nextId, ...order }: LookupRow) {
  return {
    locked,
    entry: entry ?? undefined,
    nextId,
    existing: order.id === null ? undefined : (order as OrderRecord),
  };
}

// The placement's lookup when the key's did not do it, or found the key's order: the catalog entry
// at the caller's tier, a reserved id and the existing order's columns (all null when there is
// none), so a replay's invoice is built from exactly the values the original's was.
async function openPlacement(caller: ApiCaller, idempotencyKey: string, pid: string) {
  const { rows } = await getPool().query<LookupRow>(
    prepared(
      "place-open",
      sql`SELECT (SELECT row_to_json(e) FROM catalog_entry(catalog_id => ${pid}, price_tier_id => ${caller.priceTierId}::int) e) AS entry,
                 nextval(pg_get_serial_sequence('orders', 'id'))::int AS "nextId",
                 (order_record(o)).*
            FROM (SELECT 1) one
            LEFT JOIN orders o ON o.account_id = ${caller.accountId} AND o.idempotency_key = ${idempotencyKey}`,
    ),
  );
  return readLookup(firstRow(rows, "place-open"));
}

type PlacedRow = { [K in keyof OrderRecord]: OrderRecord[K] | null } & {
  outcome: "placed" | "in_flight" | "placed_meanwhile";
  deliveries: number;
};

async function replay(
  caller: ApiCaller,
  body: OrderBody,
  existing: OrderRecord,
  entry: CatalogEntry | undefined,
  client: Pick<pg.PoolClient, "query">,
) {
  // Another key of the same account used this trxid: it is not this key's order to see.
  if (existing.apiKeyId !== caller.keyId) throw new ApiError("FORBIDDEN");
  if (existing.requestFingerprint !== fingerprintBody(body, entry)) throw new ApiError("IDEMPOTENCY_MISMATCH");
  return { invoice: await buildInvoice(existing, client), replayed: true };
}

async function attemptPlacement(
  caller: ApiCaller,
  body: OrderBody,
  prefetched?: PlacementPrefetch,
): Promise<PlacementResult> {
  const keys = requireOrderKeys(body);
  const opened =
    prefetched && !prefetched.existing
      ? { entry: prefetched.entry ?? undefined, nextId: prefetched.nextId, existing: undefined }
      : await openPlacement(caller, keys.idempotencyKey, keys.pid);
  const entry = opened.entry;
  if (opened.existing) return replay(caller, body, opened.existing, entry, getPool());

  const order = validateOrderRequest(body, entry, {
    realSupplierRequired: caller.livemode && !sandboxServesLiveOrders(),
  });
  const line = entry!;
  const id = opened.nextId!;
  const publicId = formatPublicOrderId(line.lineCode, id);
  assertPostingAmount(-line.priceCents * order.quantity);
  // A live top-up's supplier is chosen when it is fulfilled (lib/fulfilment/sql/route-order.ts); a
  // test order's supplier and stock use are decided by place_order from the account's mode.
  let placed: PlacedRow;
  try {
    placed = (
      await getPool().query<PlacedRow>(
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
                       product_id => ${line.productId},
                       catalog_id => ${line.catalogId},
                       line_slug => ${line.lineSlug},
                       line_kind => ${line.lineKind}::"LineKind",
                       pack_name => ${line.packName},
                       unit_price_cents => ${line.priceCents}::bigint,
                       quantity => ${order.quantity},
                       user_id => ${order.userId ?? null}::text,
                       zone_id => ${order.zoneId ?? null}::text,
                       server_id => ${order.serverId ?? null}::text,
                       sent_user_id => ${order.sent.userId ?? null}::text,
                       sent_zone_id => ${order.sent.zoneId ?? null}::text,
                       sent_server_id => ${order.sent.serverId ?? null}::text,
                       low_event_id => ${newEventId()}) p`,
        ),
      )
    ).rows[0]!; // place_order returns one row whatever the outcome
  } catch (error) {
    const { code, constraint, message } = error as { code?: string; constraint?: string; message?: string };
    // The key's original committed between our snapshot and our insert: answer it as a replay.
    if (code === "23505" && constraint === "orders_account_id_idempotency_key_key") throw new ConcurrentDuplicate();
    // Too few free codes, checked before the wallet: the statement failed itself, so nothing was
    // written and the trxid stays free, whatever the balance.
    if (code === "P0001" && message === "INSUFFICIENT_STOCK") throw new ApiError("INSUFFICIENT_STOCK");
    if (code === "P0001" && message === "FULFILMENT_JOB_TAKEN") {
      throw new Error(
        `order ${id} not placed: its fulfilment job's key is held by a job left from earlier (a restored or reset database?)`,
      );
    }
    throw error;
  }
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
 * anything; undefined when the key has none (or the body lacks pid or trxid). Used while a switch
 * stops new orders: a client recovering a lost answer still gets it. The same rules as a placement
 * apply to the repeat (FORBIDDEN from another key, IDEMPOTENCY_MISMATCH for another body,
 * DUPLICATE_IN_FLIGHT while the original still runs), and the catalog's current state does not matter.
 */
export async function findOrderReplay(caller: ApiCaller, body: OrderBody): Promise<PlacementResult | undefined> {
  if (!body.trxid || !body.pid) return undefined;
  const idempotencyKey = body.idempotencyKey ?? body.trxid;
  return withTransaction(async (client) => {
    const { rows } = await client.query<LookupRow>(
      prepared(
        "place-replay-lookup",
        sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${caller.accountId}::int || ':' || ${idempotencyKey}::text, 0)) AS locked,
                   (SELECT row_to_json(e) FROM catalog_entry(catalog_id => ${body.pid}, price_tier_id => ${caller.priceTierId}::int) e) AS entry,
                   (order_record(o)).*
              FROM (SELECT 1) one
              LEFT JOIN orders o ON o.account_id = ${caller.accountId} AND o.idempotency_key = ${idempotencyKey}`,
      ),
    );
    const found = readLookup(firstRow(rows, "place-replay-lookup"));
    if (!found.locked) throw new ApiError("DUPLICATE_IN_FLIGHT");
    if (!found.existing) return undefined;
    return replay(caller, body, found.existing, found.entry, client);
  });
}

/** Places the order; `prefetched` is placementKeyLookup's read, when the key's lookup did it. */
export async function placeOrder(
  caller: ApiCaller,
  body: OrderBody,
  prefetched?: PlacementPrefetch,
): Promise<PlacementResult> {
  try {
    return await attemptPlacement(caller, body, prefetched);
  } catch (error) {
    if (error instanceof ConcurrentDuplicate) return attemptPlacement(caller, body);
    throw error;
  }
}
