// POST /orders in one transaction: idempotency (per account, forever), a conditional wallet debit
// with its ledger entry, the order row with a snapshot of product, pack and price, reservation of
// codes for key and gift-card lines, the order event and the fulfilment job. Nothing is written
// when any step fails.
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { ApiError } from "../http/errors";
import type { ApiCaller } from "../auth/authenticate-api-key";
import type { OrderBody } from "../api-schemas/order-schemas";
import { InsufficientBalanceError, postLedgerEntry } from "../wallet/post-ledger-entry";
import { enqueueFulfilment } from "../fulfilment/enqueue-fulfilment";
import { buildInvoice, type Invoice } from "./build-invoice";
import { CATALOG_ENTRY_JSON } from "../catalog/catalog-record";
import { ORDER_RECORD_COLUMNS, orderRecordColumns, type OrderRecord } from "./order-record";
import { formatPublicOrderId } from "./public-order-id";
import { recordOrderEvent } from "./record-order-event";
import {
  fingerprintBody,
  fingerprintOrder,
  requireOrderKeys,
  validateOrderRequest,
  type CatalogEntry,
} from "./validate-order-request";

export interface PlacementResult {
  invoice: Invoice;
  /** True when an earlier request with the same idempotency key made this order. */
  replayed: boolean;
}

class ConcurrentDuplicate extends Error {}

// The in-flight lock for the idempotency key, the existing order for it (its columns, all null when
// there is none), and the catalog entry. The existing order comes back as plain columns, as every
// other order read does, so a replay's invoice is built from exactly the values the original's was.
const lookupStatement = (extraColumns: string) => `
  SELECT key_lock.locked, catalog_entry.entry${extraColumns}, ${orderRecordColumns("o")}
    FROM (SELECT pg_try_advisory_xact_lock(hashtextextended($1::int || ':' || $2::text, 0)) AS locked) key_lock
   CROSS JOIN (SELECT (SELECT ${CATALOG_ENTRY_JSON}
            FROM products p JOIN game_lines l ON l.id = p.line_id WHERE p.catalog_id = $3) AS entry) catalog_entry
    LEFT JOIN orders o ON o.account_id = $1 AND o.idempotency_key = $2`;

const LOOKUP = lookupStatement("");
// One round trip for a placement: the lookup, plus an order id reserved in advance so the public
// id is written with the row.
const OPEN_PLACEMENT = lookupStatement(`, nextval(pg_get_serial_sequence('orders', 'id'))::int AS "nextId"`);

type LookupRow = { locked: boolean; entry: CatalogEntry | null; nextId?: number } & { [K in keyof OrderRecord]: OrderRecord[K] | null };

function readLookup({ locked, entry, nextId, ...order }: LookupRow) {
  return { locked, entry: entry ?? undefined, nextId, existing: order.id === null ? undefined : (order as OrderRecord) };
}

// The order takes the key's next number (key_seq) in the same statement as its insert: the key's
// row stays locked to the end of this transaction, so the numbers are 1..n without gaps (a rolled
// back placement rolls its number back) and GET /history reads an exact total from the key's row.
// The account's row is key-share locked first (the lock the order's foreign key takes anyway): the
// bot's account commands lock the account and then may update a key (lib/accounts/
// manage-ip-allowlist.ts), so taking the key first would let the two deadlock.
const INSERT_ORDER = `
  WITH account AS (SELECT id FROM accounts WHERE id = $3 FOR KEY SHARE),
       numbered AS (UPDATE api_keys k SET order_count = k.order_count + 1 FROM account
                     WHERE k.id = $4 AND k.account_id = account.id RETURNING k.order_count)
  INSERT INTO orders (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id,
                      catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents,
                      user_id, zone_id, server_id, sent_user_id, sent_zone_id, sent_server_id, status, supplier, key_seq)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, 'processing', $22,
         numbered.order_count
    FROM numbered
  RETURNING ${ORDER_RECORD_COLUMNS}`;

async function replay(caller: ApiCaller, body: OrderBody, existing: OrderRecord, entry: CatalogEntry | undefined, client: pg.PoolClient) {
  // Another key of the same account used this trxid: it is not this key's order to see.
  if (existing.apiKeyId !== caller.keyId) throw new ApiError("FORBIDDEN");
  if (existing.requestFingerprint !== fingerprintBody(body, entry)) throw new ApiError("IDEMPOTENCY_MISMATCH");
  return { invoice: await buildInvoice(existing, client), replayed: true };
}

async function attemptPlacement(caller: ApiCaller, body: OrderBody): Promise<PlacementResult> {
  const keys = requireOrderKeys(body);
  return withTransaction(async (client) => {
    const { rows } = await client.query<LookupRow>(OPEN_PLACEMENT, [caller.accountId, keys.idempotencyKey, keys.pid]);
    const opened = readLookup(rows[0]);
    // The original request still holds the key's lock: it has not answered yet.
    if (!opened.locked) throw new ApiError("DUPLICATE_IN_FLIGHT");
    const entry = opened.entry;
    if (opened.existing) return replay(caller, body, opened.existing, entry, client);

    const order = validateOrderRequest(body, entry);
    const line = entry!;
    const amountCents = line.priceCents * order.quantity;
    const id = opened.nextId!;
    let inserted: OrderRecord;
    try {
      inserted = (
        await client.query<OrderRecord>(INSERT_ORDER, [
          id,
          formatPublicOrderId(line.lineCode, id),
          caller.accountId,
          caller.keyId,
          order.trxid,
          order.idempotencyKey,
          fingerprintOrder(order),
          line.productId,
          line.catalogId,
          line.lineSlug,
          line.lineKind,
          line.packName,
          line.priceCents,
          order.quantity,
          amountCents,
          order.userId ?? null,
          order.zoneId ?? null,
          order.serverId ?? null,
          order.sent.userId ?? null,
          order.sent.zoneId ?? null,
          order.sent.serverId ?? null,
          line.lineKind === "topup" ? line.supplier : null,
        ])
      ).rows[0];
    } catch (error) {
      // The key's original committed between our snapshot and our insert: answer it as a replay.
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === "23505" && constraint === "orders_account_id_idempotency_key_key") throw new ConcurrentDuplicate();
      throw error;
    }
    // No row: the key is not this account's (it authenticated this request, so it cannot be).
    if (!inserted) throw new Error(`api key ${caller.keyId} of account ${caller.accountId} not found while placing an order`);

    try {
      await postLedgerEntry(client, {
        accountId: caller.accountId,
        kind: "debit",
        amountCents: -amountCents,
        orderId: id,
        actor: `api-key:${caller.keyId}`,
        reason: `order ${inserted.publicId}`,
      });
    } catch (error) {
      if (!(error instanceof InsufficientBalanceError)) throw error;
      // Stored, so a replay of this trxid answers the same cancelled invoice.
      const cancelled = await client.query<OrderRecord>(
        `UPDATE orders SET status = 'cancelled', order_created = false, error = 'INSUFFICIENT BALANCE', finished_at = now(), updated_at = now()
          WHERE id = $1 RETURNING ${ORDER_RECORD_COLUMNS}`,
        [id],
      );
      await recordOrderEvent(client, id, null, "cancelled", "INSUFFICIENT BALANCE: nothing charged");
      return { invoice: await buildInvoice(cancelled.rows[0], client), replayed: false };
    }

    if (line.lineKind !== "topup") {
      const reserved = await client.query(
        `UPDATE inventory_codes SET status = 'reserved', order_id = $1, reserved_at = now()
          WHERE id IN (SELECT id FROM inventory_codes WHERE product_id = $2 AND status = 'available'
                        ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)`,
        [id, line.productId, order.quantity],
      );
      // Rolls back the debit and the order: insufficient stock charges nothing.
      if (reserved.rowCount !== order.quantity) throw new ApiError("INSUFFICIENT_STOCK");
    }

    await recordOrderEvent(client, id, null, "processing", "placed: wallet debited, queued for fulfilment");
    await enqueueFulfilment(client, id);
    return { invoice: await buildInvoice(inserted, client), replayed: false };
  });
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
    const { rows } = await client.query<LookupRow>(LOOKUP, [caller.accountId, idempotencyKey, body.pid]);
    const found = readLookup(rows[0]);
    if (!found.locked) throw new ApiError("DUPLICATE_IN_FLIGHT");
    if (!found.existing) return undefined;
    return replay(caller, body, found.existing, found.entry, client);
  });
}

export async function placeOrder(caller: ApiCaller, body: OrderBody): Promise<PlacementResult> {
  try {
    return await attemptPlacement(caller, body);
  } catch (error) {
    if (error instanceof ConcurrentDuplicate) return attemptPlacement(caller, body);
    throw error;
  }
}
