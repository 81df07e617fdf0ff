// The floor: the least a Node server can do to answer the bench's requests. Bare node:http and one
// pg Pool (PG_POOL_MAX, default 10, like the service), the same reads and writes the service does
// for the same requests, every statement named (parsed and planned once per connection), and JSON
// bodies of the same shape. No framework, no Request/Response objects, no zod, no settings or
// rate-limit look-ups: what the service costs beyond this is its own. A placement is the key
// look-up plus one statement that does the whole order transaction (floor-sql.ts PLACE_ORDER).
//
// The statements are in floor-sql.ts (keep them in step when lib/ changes).
import crypto from "node:crypto";
import http from "node:http";
import pg from "pg";
import {
  ADD_JOB,
  DEBIT,
  INSERT_EVENT,
  INSERT_LEDGER,
  INSERT_ORDER,
  LIST_PRODUCTS,
  LOOKUP,
  OPEN_PLACEMENT,
  PLACE_ORDER,
  RESERVE_ORDER_IDS,
} from "./floor-sql";

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.PG_POOL_MAX ?? 10),
  connectionTimeoutMillis: 5000,
  idleTimeoutMillis: 30_000,
});
pool.on("error", (error) => console.error("[floor] idle client error:", error.message));

const APP_SECRET = process.env.APP_SECRET ?? "";

/**
 * How the floor places an order. "lean" (the default): one named statement (PLACE_ORDER in
 * floor-sql.ts) after the key look-up, two round trips in all, the least we know how to send for
 * the same writes. "stepwise": the transaction the floor sent until 2026-11-23, statement by
 * statement like lib/orders (BEGIN, open, insert, debit, ledger, event, add_job with job_key,
 * COMMIT), unnamed; "stepwise-named" (or FLOOR_PREPARED=1): the same as named prepared statements.
 * The stepwise ones are kept to measure the old floor beside the new one in one run.
 */
const TRANSACTION = process.env.FLOOR_TRANSACTION ?? (process.env.FLOOR_PREPARED === "1" ? "stepwise-named" : "lean");
if (!["lean", "stepwise", "stepwise-named"].includes(TRANSACTION))
  throw new Error(`FLOOR_TRANSACTION must be lean, stepwise or stepwise-named, got ${TRANSACTION}`);
const PREPARED = TRANSACTION === "stepwise-named";
function statement(name: string, text: string, values: unknown[]): pg.QueryConfig {
  return PREPARED ? { name: `floor-${name}`, text, values } : { text, values };
}
const KEY_PATTERN = /^svc_[A-Za-z0-9]{40}$/;
const PUBLIC_ID_PATTERN = /^SVCAPI-([A-Z]{2})-([0-9A-Z]{1,13})-([0-9A-Z]{6})$/;

interface Caller {
  keyId: number;
  accountId: number;
  apiEnabled: boolean;
  apiDisabledByAdmin: boolean;
  bannedAt: Date | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg rows and JSON bodies, read by field name
type Row = Record<string, any>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.error));
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function authenticate(req: http.IncomingMessage): Promise<Caller> {
  const key = req.headers["x-api-key"];
  if (typeof key !== "string" || !KEY_PATTERN.test(key))
    throw new HttpError(401, { success: false, error: "INVALID_API_KEY", code: "INVALID_API_KEY" });
  const hash = crypto.createHash("sha256").update(key).digest("hex");
  const { rows } = await pool.query<Caller>({ name: "auth-key-lookup", text: LOOKUP, values: [hash] });
  const caller = rows[0];
  if (!caller) throw new HttpError(401, { success: false, error: "INVALID_API_KEY", code: "INVALID_API_KEY" });
  if (caller.bannedAt || caller.apiDisabledByAdmin || !caller.apiEnabled)
    throw new HttpError(403, { success: false, error: "API_DISABLED", code: "API_DISABLED" });
  return caller;
}

function orderHash(id: number): string {
  const digest = crypto.createHmac("sha256", APP_SECRET).update(`order:${id}`).digest();
  return (digest.readUIntBE(0, 6) % 36 ** 6).toString(36).toUpperCase().padStart(6, "0");
}

function toInvoice(order: Row) {
  const createdAt = new Date(order.created_at);
  const finishedAt = order.finished_at ? new Date(order.finished_at) : null;
  const finished = finishedAt && (order.status === "completed" || order.status === "cancelled");
  return {
    orderCreated: order.order_created,
    orderId: order.public_id,
    trxid: order.trxid,
    status: order.status,
    game: order.line_slug,
    packName: order.pack_name,
    amountUsd: Math.round(order.amount_cents) / 100,
    quantity: order.quantity,
    ...(order.user_id !== null ? { userId: order.user_id } : {}),
    ...(order.zone_id !== null ? { zoneId: order.zone_id } : {}),
    ...(order.server_id !== null ? { serverId: order.server_id } : {}),
    ...(order.status === "cancelled" ? { error: order.error ?? "CANCELLED", refunded: order.refunded } : {}),
    ...(finished ? { durationSec: Math.round((finishedAt.getTime() - createdAt.getTime()) / 100) / 10 } : {}),
    createdAt: createdAt.toISOString(),
  };
}

async function readBody(req: http.IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Row;
  } catch {
    // fall through
  }
  throw new HttpError(401, { success: false, error: "INVALID JSON" });
}

const invalidRequest = () => new HttpError(400, { success: false, error: "INVALID REQUEST" });

// Order ids for the lean placement, reserved in blocks; an id whose statement wrote no order goes back.
const freeIds: number[] = [];
let refilling: Promise<void> | undefined;
async function takeOrderId(): Promise<number> {
  while (freeIds.length === 0) {
    refilling ??= pool
      .query<{ id: number }>({ name: "floor-reserve-ids", text: RESERVE_ORDER_IDS, values: [200] })
      .then(({ rows }) => void freeIds.push(...rows.map((row) => row.id)))
      .finally(() => (refilling = undefined));
    await refilling;
  }
  return freeIds.pop()!;
}

async function placeLean(
  caller: Caller,
  pid: string,
  trxid: string,
  idempotencyKey: string,
  userId: unknown,
): Promise<unknown> {
  // The service answers a missing userId after finding the key unused and the entry orderable; the
  // floor checks it first (the bench always sends one).
  if (typeof userId !== "string") throw invalidRequest();
  const fingerprint = crypto
    .createHash("sha256")
    .update(JSON.stringify([pid, userId, null, null, 1]))
    .digest("hex");
  for (let attempt = 1; ; attempt++) {
    const id = await takeOrderId();
    let row: Row;
    try {
      row = (
        await pool.query({
          name: "floor-place-order",
          text: PLACE_ORDER,
          values: [
            caller.accountId,
            idempotencyKey,
            pid,
            id,
            `${id.toString(36).toUpperCase()}-${orderHash(id)}`,
            caller.keyId,
            trxid,
            fingerprint,
            userId,
            `api-key:${caller.keyId}`,
            `evt_${crypto.randomBytes(16).toString("base64url")}`,
          ],
        })
      ).rows[0];
    } catch (error) {
      freeIds.push(id);
      // The key's original committed between this statement's snapshot and its insert: read it now.
      if ((error as { code?: string }).code === "23505" && attempt === 1) continue;
      throw error;
    }
    if (!row.inserted) freeIds.push(id);
    if (!row.locked)
      throw new HttpError(429, { success: false, error: "DUPLICATE_IN_FLIGHT", code: "DUPLICATE_IN_FLIGHT" });
    if (row.existing) return { success: true, ...toInvoice(row.existing) };
    if (!row.known) throw new HttpError(400, { success: false, error: "UNKNOWN PID" });
    if (!row.orderable) throw new HttpError(400, { success: false, error: "GAME DISABLED" });
    return { success: true, ...toInvoice(row.inserted) };
  }
}

async function placeOrder(caller: Caller, body: Row): Promise<unknown> {
  const pid = body.pid ?? body.PID;
  const trxid = body.trxid ?? body.trxId ?? body.idtrx ?? body.idTrx;
  const userId = body.userId ?? body.userID;
  if (typeof pid !== "string" || typeof trxid !== "string") throw invalidRequest();
  const idempotencyKey = typeof body.idempotencyKey === "string" ? body.idempotencyKey : trxid;
  if (TRANSACTION === "lean") return placeLean(caller, pid, trxid, idempotencyKey, userId);

  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const opened = (await client.query(statement("open", OPEN_PLACEMENT, [caller.accountId, idempotencyKey, pid])))
      .rows[0] as Row;
    if (!opened.locked)
      throw new HttpError(429, { success: false, error: "DUPLICATE_IN_FLIGHT", code: "DUPLICATE_IN_FLIGHT" });
    if (opened.existing) {
      await client.query("COMMIT");
      return { success: true, ...toInvoice(opened.existing) };
    }
    const entry = opened.entry as Row | null;
    if (!entry) throw new HttpError(400, { success: false, error: "UNKNOWN PID" });
    if (
      !entry.lineAvailable ||
      !entry.lineOrderable ||
      !entry.productActive ||
      entry.lineKind !== "topup" ||
      !entry.supplierSku
    ) {
      throw new HttpError(400, { success: false, error: "GAME DISABLED" });
    }
    if (typeof userId !== "string") throw invalidRequest();

    const id = opened.next_id as number;
    const publicId = `SVCAPI-${entry.lineCode}-${id.toString(36).toUpperCase()}-${orderHash(id)}`;
    const fingerprint = crypto
      .createHash("sha256")
      .update(JSON.stringify([entry.catalogId, userId, null, null, 1]))
      .digest("hex");
    const amountCents = entry.priceCents as number;
    const inserted = (
      await client.query(
        statement("insert-order", INSERT_ORDER, [
          id,
          publicId,
          caller.accountId,
          caller.keyId,
          trxid,
          idempotencyKey,
          fingerprint,
          entry.productId,
          entry.catalogId,
          entry.lineSlug,
          entry.lineKind,
          entry.packName,
          entry.priceCents,
          1,
          amountCents,
          userId,
          null,
          null,
          entry.supplier,
        ]),
      )
    ).rows[0] as Row;

    const debited = await client.query<{ balance_cents: number; ledger_count: number }>(
      statement("debit", DEBIT, [caller.accountId, -amountCents, 0]),
    );
    if (debited.rowCount === 0) {
      const cancelled = await client.query(
        `UPDATE orders SET status = 'cancelled', order_created = false, error = 'INSUFFICIENT BALANCE', finished_at = now(), updated_at = now()
          WHERE id = $1 RETURNING *`,
        [id],
      );
      await client.query(INSERT_EVENT, [id, null, "cancelled", "INSUFFICIENT BALANCE: nothing charged"]);
      await client.query("COMMIT");
      return { success: true, ...toInvoice(cancelled.rows[0]) };
    }
    await client.query(
      statement("ledger", INSERT_LEDGER, [
        caller.accountId,
        "debit",
        -amountCents,
        debited.rows[0]!.balance_cents,
        id,
        `api-key:${caller.keyId}`,
        `order ${publicId}`,
        null,
        debited.rows[0]!.ledger_count,
      ]),
    );
    await client.query(
      statement("event", INSERT_EVENT, [id, null, "processing", "placed: wallet debited, queued for fulfilment"]),
    );
    await client.query(statement("add-job", ADD_JOB, ["fulfil_order", id, `order:${id}`, null]));
    await client.query("COMMIT");
    return { success: true, ...toInvoice(inserted) };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function readOrder(caller: Caller, reference: string): Promise<unknown> {
  let id: number | undefined;
  const match = PUBLIC_ID_PATTERN.exec(reference.toUpperCase());
  if (match) {
    const parsed = parseInt(match[2]!, 36);
    if (orderHash(parsed) === match[3]) id = parsed;
  } else if (/^\d{1,9}$/.test(reference)) {
    id = Number(reference);
  }
  const rows =
    id === undefined
      ? []
      : (
          await pool.query({
            name: "order-by-id",
            text: `SELECT * FROM orders WHERE id = $1 AND account_id = $2`,
            values: [id, caller.accountId],
          })
        ).rows;
  if (rows.length === 0) throw new HttpError(404, { success: false, error: "ORDER NOT FOUND" });
  return { success: true, ...toInvoice(rows[0]) };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  try {
    if (req.method === "GET" && pathname === "/balance") {
      const caller = await authenticate(req);
      const { rows } = await pool.query({
        name: "read-balance",
        text: `SELECT balance_cents FROM accounts WHERE id = $1`,
        values: [caller.accountId],
      });
      return send(res, 200, {
        success: true,
        balanceUsd: Math.round(rows[0]?.balance_cents ?? 0) / 100,
        currency: "USD",
      });
    }
    if (req.method === "GET" && (pathname === "/products" || pathname === "/catalog")) {
      await authenticate(req);
      const { rows } = await pool.query({ name: "list-products", text: LIST_PRODUCTS });
      const products = rows.map((row) => ({
        id: row.catalog_id,
        slug: row.slug,
        gameName: row.game_name,
        serviceName: row.product_name,
        packName: row.pack_name,
        kind: row.kind,
        price: Math.round(row.price_cents) / 100,
        currency: "USD",
        orderable: row.orderable,
        ...(row.stock === null ? {} : { stock: row.stock }),
      }));
      return send(res, 200, { success: true, products });
    }
    if (req.method === "GET" && pathname === "/history") {
      const caller = await authenticate(req);
      const limit = Number(new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1)).get("limit") ?? 30);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalidRequest();
      // The calling key's orders, as the service lists them (the key's own numbers, newest first).
      const { rows } = await pool.query({
        name: "history-page",
        text: `SELECT * FROM orders WHERE account_id = $1 AND api_key_id = $2 ORDER BY key_seq DESC LIMIT $3`,
        values: [caller.accountId, caller.keyId, limit],
      });
      const orders = rows.map(toInvoice);
      return send(res, 200, { success: true, count: orders.length, orders });
    }
    if (req.method === "GET" && pathname.startsWith("/orders/")) {
      const caller = await authenticate(req);
      return send(res, 200, await readOrder(caller, decodeURIComponent(pathname.slice("/orders/".length))));
    }
    if (req.method === "POST" && pathname === "/orders") {
      const caller = await authenticate(req);
      return send(res, 200, await placeOrder(caller, await readBody(req)));
    }
    send(res, 404, { success: false, error: "NOT FOUND", code: "NOT_FOUND" });
  } catch (error) {
    if (error instanceof HttpError) return send(res, error.status, error.body);
    // The load generator closes its connections when a run ends, mid-request for some.
    if (req.destroyed || (error as { code?: string }).code === "ECONNRESET") return;
    console.error("[floor] unexpected error:", error);
    send(res, 500, { success: false, error: "INTERNAL ERROR", code: "INTERNAL_ERROR" });
  }
}

const server = http.createServer((req, res) => void handle(req, res));
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`[floor] listening on http://127.0.0.1:${port}`);
  process.send?.({ type: "listening", port });
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
