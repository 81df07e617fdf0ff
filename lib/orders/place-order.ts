// POST /orders in one transaction: idempotency (per account, forever), a conditional wallet debit
// with its ledger entry, the order row with a snapshot of product, pack and price, reservation of
// codes for key and gift-card lines, the order event and the fulfilment job. Nothing is written
// when any step fails.
import type pg from "pg";
import { getPool, withTransaction } from "../db/pool";
import { ApiError } from "../http/errors";
import type { ApiCaller, KeyLookupExtra } from "../auth/authenticate-api-key";
import type { OrderBody } from "../api-schemas/order-schemas";
import { assertPostingAmount, ledgerMoveCtes } from "../wallet/post-ledger-entry";
import { FULFILMENT_JOB_ADDED, placementJobCte } from "../fulfilment/enqueue-fulfilment";
import { newEventId, WEBHOOK_DELIVERIES, wakeDispatchersNow } from "../webhooks/record-webhook-event";
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

/** The message PLACE_ORDER fails itself with when its order's fulfilment job was not added. */
const FULFILMENT_JOB_TAKEN = "FULFILMENT_JOB_TAKEN";

// Two round trips and no BEGIN/COMMIT: the lookup (OPEN_PLACEMENT), the body validated against its
// catalog entry in Node, then one writing statement (PLACE_ORDER), which is its own transaction.
// Each round trip costs the web process a socket write and a read (about 60 µs of its CPU here);
// BEGIN and COMMIT were two of the four (bench/RESULTS.md, "2026-11-25"). Under POST /orders the
// lookup rides on the API key's own lookup (placementKeyLookup), so a new order costs the request
// one statement besides the key's: the writing one.

// The two reads every placement lookup makes, whichever statement carries them: the catalog entry
// of the pid ($3) and the order's id, reserved in advance.
const CATALOG_ENTRY_OF_PID = `(SELECT ${CATALOG_ENTRY_JSON} FROM products p JOIN game_lines l ON l.id = p.line_id WHERE p.catalog_id = $3)`;
const RESERVED_ORDER_ID = `nextval(pg_get_serial_sequence('orders', 'id'))::int`;

// The existing order for the idempotency key (its columns, all null when there is none) and the
// catalog entry. The existing order comes back as plain columns, as every other order read does,
// so a replay's invoice is built from exactly the values the original's was. `locked` (for
// findOrderReplay, inside its transaction) tries the key's in-flight lock as well.
const lookupStatement = ({ locked, nextId }: { locked: boolean; nextId: boolean }) => `
  SELECT ${locked ? "pg_try_advisory_xact_lock(hashtextextended($1::int || ':' || $2::text, 0)) AS locked, " : ""}catalog_entry.entry${
    nextId ? `, ${RESERVED_ORDER_ID} AS "nextId"` : ""
  }, ${orderRecordColumns("o")}
    FROM (SELECT ${CATALOG_ENTRY_OF_PID} AS entry) catalog_entry
    LEFT JOIN orders o ON o.account_id = $1 AND o.idempotency_key = $2`;

const REPLAY_LOOKUP = lookupStatement({ locked: true, nextId: false });
// A placement's lookup reserves the order's id in advance, so the public id is written with the
// row. It takes no lock: sent on its own, it would hold one only while it ran. The writing
// statement takes it. Both are named (prepared once per connection): sent unnamed, the lookup was
// parsed and planned on every order, 0.45 against 0.15 ms (bench/RESULTS.md).
const OPEN_PLACEMENT = lookupStatement({ locked: false, nextId: true });

type LookupRow = { locked?: boolean; entry: CatalogEntry | null; nextId?: number } & {
  [K in keyof OrderRecord]: OrderRecord[K] | null;
};

/** OPEN_PLACEMENT's answer as the API key's lookup reads it: whether the key has an order, not the order. */
export interface PlacementPrefetch {
  entry: CatalogEntry | null;
  nextId: number;
  existing: boolean;
}

/**
 * POST /orders' lookup as a read of the API key's lookup statement (lib/http/public-route.ts,
 * withKeyLookup): the catalog entry, the order's id reserved in advance, and whether the
 * idempotency key already has an order (then the placement runs OPEN_PLACEMENT itself, to answer
 * the replay from that order's columns). Undefined when the body lacks pid or trxid: the
 * placement refuses it before any SQL.
 */
export function placementKeyLookup(body: OrderBody): KeyLookupExtra | undefined {
  if (!body.pid || !body.trxid) return undefined;
  return {
    name: "place-open",
    expression: `json_build_object(
      'entry', ${CATALOG_ENTRY_OF_PID},
      'nextId', ${RESERVED_ORDER_ID},
      'existing', EXISTS (SELECT 1 FROM orders o WHERE o.account_id = k.account_id AND o.idempotency_key = $2))`,
    values: [body.idempotencyKey ?? body.trxid, body.pid],
  };
}

function readLookup(row: LookupRow | undefined) {
  if (!row) throw new Error("the order lookup returned no row");
  const { locked, entry, nextId, ...order } = row;
  return {
    locked,
    entry: entry ?? undefined,
    nextId,
    existing: order.id === null ? undefined : (order as OrderRecord),
  };
}

// The placement's writing statement, one transaction of its own: the in-flight lock, the order
// row, the money move, the codes, the order event, the fulfilment job and balance.low, as CTEs.
// The texts of the move, the event and the job are their modules' (ledgerMoveCtes,
// insertOrderEventSql, placementJobCte): this statement composes them and writes nothing else of
// theirs.
//
// The gate, before anything is written:
// - the idempotency key's in-flight lock (pg_try_advisory_xact_lock, held until this statement
//   commits): another placement with the key holds it, so this one writes nothing and answers
//   DUPLICATE_IN_FLIGHT;
// - no order with the key in this statement's snapshot: one that committed after the lookup
//   (placedMeanwhile) makes the caller run the placement again and answer it as a replay. One that
//   commits after this statement's snapshot fails the order's insert with 23505, which the caller
//   handles the same way.
//
// Order of locks, as the stepwise transaction took them: the account's row key-share locked (the
// lock the order's foreign key takes anyway), then the key's row, then the account's row for the
// debit, then the codes. The bot's account commands lock the account and then may update a key
// (lib/accounts/manage-ip-allowlist.ts), so taking the key first would let the two deadlock. The
// debit joins `numbered` (ledgerMoveCtes' `after`) and the codes' reservation reads the debit, so
// the CTEs run in that order whatever the plan.
//
// The order takes the key's next number (key_seq) in the same statement as its insert: the key's
// row stays locked until the statement commits, so the numbers are 1..n without gaps (a failed
// placement rolls its number back) and GET /history reads an exact total from the key's row.
//
// Not charged (the balance would go below zero): the order is stored cancelled with INSUFFICIENT
// BALANCE and nothing else but its event, so a replay answers the same invoice. Charged: codes
// are reserved for key and gift-card lines ($27 of them; 0 for a top-up), and when fewer were free
// the statement fails itself after its writes (raise_api_error, a migration's function), which
// undoes all of them: INSUFFICIENT_STOCK charges nothing. A charged order whose fulfilment job was
// not added (its key taken: lib/fulfilment/enqueue-fulfilment.ts) fails the statement the same
// way, so no order is ever stored without its job. The CTEs share one snapshot, so each
// reads another's writes only through RETURNING, which is how they are chained; the reservation's
// FOR UPDATE SKIP LOCKED rechecks a code's latest version, so no code is handed out twice. A code
// that becomes available after the statement began (a restock, or a cancelled order's release
// while this statement waited for the key's or the account's lock) is not seen by it: that
// placement answers INSUFFICIENT_STOCK as it would have a moment earlier.
const PLACE_ORDER = `
  WITH gate AS MATERIALIZED (
         SELECT pg_try_advisory_xact_lock(hashtextextended($3::int || ':' || $6::text, 0)) AS locked,
                EXISTS (SELECT 1 FROM orders WHERE account_id = $3 AND idempotency_key = $6) AS "placedMeanwhile"
       ),
       account AS (SELECT id FROM accounts WHERE id = $3 FOR KEY SHARE),
       numbered AS (UPDATE api_keys k SET order_count = k.order_count + 1 FROM account, gate
                     WHERE k.id = $4 AND k.account_id = account.id AND gate.locked AND NOT gate."placedMeanwhile"
                 RETURNING k.order_count),
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
       ${placementJobCte({ source: "placed", orderId: "placed.id", when: `placed."orderCreated"` })}
  SELECT gate.locked, gate."placedMeanwhile", placed.*, ${WEBHOOK_DELIVERIES} AS "deliveries",
         CASE WHEN placed."orderCreated" AND stock.reserved <> $27 THEN raise_api_error('INSUFFICIENT_STOCK') END AS "stockShort",
         CASE WHEN placed."orderCreated" AND ${FULFILMENT_JOB_ADDED} <> 1 THEN raise_api_error('${FULFILMENT_JOB_TAKEN}') END AS "jobTaken"
    FROM gate CROSS JOIN (SELECT count(*) AS reserved FROM reserved) stock LEFT JOIN placed ON true`;

type PlacedRow = { [K in keyof OrderRecord]: OrderRecord[K] | null } & {
  locked: boolean;
  placedMeanwhile: boolean;
  deliveries: number;
  stockShort: null;
  jobTaken: null;
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
  const pool = getPool();
  const opened =
    prefetched && !prefetched.existing
      ? { entry: prefetched.entry ?? undefined, nextId: prefetched.nextId, existing: undefined }
      : readLookup(
          (
            await pool.query<LookupRow>({
              name: "place-open",
              text: OPEN_PLACEMENT,
              values: [caller.accountId, keys.idempotencyKey, keys.pid],
            })
          ).rows[0],
        );
  const entry = opened.entry;
  if (opened.existing) return replay(caller, body, opened.existing, entry, pool);

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
      await pool.query<PlacedRow>({
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
    const { code, constraint, message } = error as { code?: string; constraint?: string; message?: string };
    // The key's original committed between our snapshot and our insert: answer it as a replay.
    if (code === "23505" && constraint === "orders_account_id_idempotency_key_key") throw new ConcurrentDuplicate();
    // Charged, then too few free codes: the statement failed itself, so nothing was written.
    if (code === "P0001" && message === "INSUFFICIENT_STOCK") throw new ApiError("INSUFFICIENT_STOCK");
    if (code === "P0001" && message === FULFILMENT_JOB_TAKEN) {
      throw new Error(
        `order ${id} not placed: its fulfilment job's key is held by a job left from earlier (a restored or reset database?)`,
      );
    }
    throw error;
  }
  if (!placed) throw new Error("place-order returned no row");
  const { locked, placedMeanwhile, deliveries, stockShort: _, jobTaken: __, ...columns } = placed;
  // The gate wrote nothing in these two cases. The original request holds the key's lock: it
  // has not answered yet.
  if (!locked) throw new ApiError("DUPLICATE_IN_FLIGHT");
  if (placedMeanwhile) throw new ConcurrentDuplicate();
  // No order: the key is not this account's (it authenticated this request, so it cannot be).
  if (columns.id === null)
    throw new Error(`api key ${caller.keyId} of account ${caller.accountId} not found while placing an order`);
  const inserted = columns as OrderRecord;
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
    const { rows } = await client.query<LookupRow>({
      name: "place-replay-lookup",
      text: REPLAY_LOOKUP,
      values: [caller.accountId, idempotencyKey, body.pid],
    });
    const found = readLookup(rows[0]);
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
