// POST /orders in one transaction: idempotency (per account, forever), a conditional wallet debit
// with its ledger entry, the order row with a snapshot of product, pack and price, reservation of
// codes for key and gift-card lines, the order event and the fulfilment job. Nothing is written
// when any step fails.
import type pg from "pg";
import { withTransaction } from "../db/pool";
import { ApiError } from "../http/errors";
import type { ApiCaller } from "../auth/authenticate-api-key";
import type { OrderBody } from "../api-schemas/order-schemas";
import { assertPostingAmount, ledgerMoveCtes } from "../wallet/post-ledger-entry";
import { FULFILMENT_JOBS, placementJobCtes } from "../fulfilment/enqueue-fulfilment";
import { newEventId, WEBHOOK_DELIVERIES, wakeDispatchersAfterCommit } from "../webhooks/record-webhook-event";
import { buildInvoice, type Invoice } from "./build-invoice";
import { CATALOG_ENTRY_JSON } from "../catalog/catalog-record";
import { ORDER_RECORD_COLUMNS, orderRecordColumns, type OrderRecord } from "./order-record";
import { formatPublicOrderId } from "./public-order-id";
import { insertOrderEventSql } from "./record-order-event";
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

// Four round trips: BEGIN, the lookup, the writing statement (PLACE_ORDER), COMMIT. The body is
// validated against the catalog entry in Node between the two statements.

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
// id is written with the row. Both are named (prepared once per connection): sent unnamed, the
// lookup was parsed and planned on every order, 0.45 against 0.15 ms (bench/RESULTS.md).
const OPEN_PLACEMENT = lookupStatement(`, nextval(pg_get_serial_sequence('orders', 'id'))::int AS "nextId"`);

type LookupRow = { locked: boolean; entry: CatalogEntry | null; nextId?: number } & { [K in keyof OrderRecord]: OrderRecord[K] | null };

function readLookup({ locked, entry, nextId, ...order }: LookupRow) {
  return { locked, entry: entry ?? undefined, nextId, existing: order.id === null ? undefined : (order as OrderRecord) };
}

// The placement's one writing statement: the order row, the money move, the codes, the order
// event, the fulfilment job and balance.low, as data-modifying CTEs (one round trip where the
// stepwise transaction took five to seven; bench/RESULTS.md, "2026-11-24: where things stand").
// The texts of the move, the event and the job are their modules' (ledgerMoveCtes,
// insertOrderEventSql, placementJobCtes): this statement composes them and writes nothing else of
// theirs.
//
// Order of locks, as the stepwise transaction took them: the account's row key-share locked (the
// lock the order's foreign key takes anyway), then the key's row, then the account's row for the
// debit, then the codes. The bot's account commands lock the account and then may update a key
// (lib/accounts/manage-ip-allowlist.ts), so taking the key first would let the two deadlock. The
// debit joins `numbered` (ledgerMoveCtes' `after`) and the codes' reservation reads the debit, so
// the CTEs run in that order whatever the plan.
//
// The order takes the key's next number (key_seq) in the same statement as its insert: the key's
// row stays locked to the end of this transaction, so the numbers are 1..n without gaps (a rolled
// back placement rolls its number back) and GET /history reads an exact total from the key's row.
//
// Not charged (the balance would go below zero): the order is stored cancelled with INSUFFICIENT
// BALANCE and nothing else but its event, so a replay answers the same invoice. Charged: codes
// are reserved for key and gift-card lines ($27 of them; 0 for a top-up), and the caller rolls the
// whole transaction back when fewer were free (INSUFFICIENT_STOCK charges nothing). The CTEs share
// one snapshot, so each reads another's writes only through RETURNING, which is how they are
// chained; the reservation's FOR UPDATE SKIP LOCKED rechecks a code's latest version, so no code is
// handed out twice. A code that becomes available after the statement began (a restock, or a
// cancelled order's release while this statement waited for the key's or the account's lock) is
// not seen by it: that placement answers INSUFFICIENT_STOCK as it would have a moment earlier.
const PLACE_ORDER = `
  WITH account AS (SELECT id FROM accounts WHERE id = $3 FOR KEY SHARE),
       numbered AS (UPDATE api_keys k SET order_count = k.order_count + 1 FROM account
                     WHERE k.id = $4 AND k.account_id = account.id RETURNING k.order_count),
       ${ledgerMoveCtes({
         accountId: "$3::int",
         kind: `'debit'::"LedgerKind"`,
         amountCents: "$23::bigint",
         creditedCents: "0",
         orderId: "$1::int",
         actor: "$24::text",
         reason: "$25::text",
         auditLogId: "NULL::int",
         lowEventId: "$26::text",
         after: "numbered",
       })},
       placed AS (
         INSERT INTO orders (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint, product_id,
                             catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity, amount_cents,
                             user_id, zone_id, server_id, sent_user_id, sent_zone_id, sent_server_id, status, supplier, key_seq,
                             order_created, error, finished_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
                CASE WHEN debit.charged THEN 'processing' ELSE 'cancelled' END::"OrderStatus", $22, numbered.order_count,
                debit.charged, CASE WHEN debit.charged THEN NULL ELSE 'INSUFFICIENT BALANCE' END,
                CASE WHEN debit.charged THEN NULL ELSE now() END
           FROM numbered, (SELECT EXISTS (SELECT 1 FROM ledger_move) AS charged) debit
         RETURNING ${ORDER_RECORD_COLUMNS}
       ),
       reserved AS (
         UPDATE inventory_codes SET status = 'reserved', order_id = $1, reserved_at = now()
          WHERE id IN (SELECT id FROM inventory_codes
                        WHERE product_id = $8 AND status = 'available' AND EXISTS (SELECT 1 FROM ledger_move)
                        ORDER BY id LIMIT $27 FOR UPDATE SKIP LOCKED)
         RETURNING id
       ),
       placed_event AS (
         ${insertOrderEventSql({
           orderId: "placed.id",
           from: "NULL",
           to: "placed.status",
           reason: `CASE WHEN placed."orderCreated" THEN 'placed: wallet debited, queued for fulfilment' ELSE 'INSUFFICIENT BALANCE: nothing charged' END`,
           data: "NULL",
           source: "placed",
         })}
       ),
       ${placementJobCtes({ source: "placed", orderId: "placed.id", when: `placed."orderCreated"` })}
  SELECT placed.*, (SELECT count(*) FROM reserved)::int AS "reservedCodes", ${FULFILMENT_JOBS} AS "jobs",
         ${WEBHOOK_DELIVERIES} AS "deliveries"
    FROM placed`;

type PlacedRow = OrderRecord & { reservedCodes: number; jobs: number; deliveries: number };

async function replay(caller: ApiCaller, body: OrderBody, existing: OrderRecord, entry: CatalogEntry | undefined, client: pg.PoolClient) {
  // Another key of the same account used this trxid: it is not this key's order to see.
  if (existing.apiKeyId !== caller.keyId) throw new ApiError("FORBIDDEN");
  if (existing.requestFingerprint !== fingerprintBody(body, entry)) throw new ApiError("IDEMPOTENCY_MISMATCH");
  return { invoice: await buildInvoice(existing, client), replayed: true };
}

async function attemptPlacement(caller: ApiCaller, body: OrderBody): Promise<PlacementResult> {
  const keys = requireOrderKeys(body);
  return withTransaction(async (client) => {
    const { rows } = await client.query<LookupRow>({ name: "place-open", text: OPEN_PLACEMENT, values: [caller.accountId, keys.idempotencyKey, keys.pid] });
    const opened = readLookup(rows[0]);
    // The original request still holds the key's lock: it has not answered yet.
    if (!opened.locked) throw new ApiError("DUPLICATE_IN_FLIGHT");
    const entry = opened.entry;
    if (opened.existing) return replay(caller, body, opened.existing, entry, client);

    const order = validateOrderRequest(body, entry);
    const line = entry!;
    const amountCents = line.priceCents * order.quantity;
    const id = opened.nextId!;
    const publicId = formatPublicOrderId(line.lineCode, id);
    const reserveCodes = line.lineKind === "topup" ? 0 : order.quantity;
    assertPostingAmount(-amountCents);
    let placed: PlacedRow | undefined;
    try {
      placed = (
        await client.query<PlacedRow>({
          name: "place-order",
          text: PLACE_ORDER,
          values: [
            id,
            publicId,
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
            -amountCents,
            `api-key:${caller.keyId}`,
            `order ${publicId}`,
            newEventId(),
            reserveCodes,
          ],
        })
      ).rows[0];
    } catch (error) {
      // The key's original committed between our snapshot and our insert: answer it as a replay.
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === "23505" && constraint === "orders_account_id_idempotency_key_key") throw new ConcurrentDuplicate();
      throw error;
    }
    // No row: the key is not this account's (it authenticated this request, so it cannot be).
    if (!placed) throw new Error(`api key ${caller.keyId} of account ${caller.accountId} not found while placing an order`);
    const { reservedCodes, jobs, deliveries, ...inserted } = placed;
    // Throwing rolls back the debit, the order and its job: insufficient stock charges nothing.
    if (inserted.orderCreated && reservedCodes !== reserveCodes) throw new ApiError("INSUFFICIENT_STOCK");
    if (inserted.orderCreated && jobs !== 1) throw new Error(`order ${id} placed without its fulfilment job`);
    wakeDispatchersAfterCommit(client, deliveries);
    // A new order is processing or cancelled, never completed: its invoice has no codes to read.
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
    const { rows } = await client.query<LookupRow>({ name: "place-replay-lookup", text: LOOKUP, values: [caller.accountId, idempotencyKey, body.pid] });
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
