// The floor: the least a Node server can do to answer the bench's requests. Bare node:http, the
// service's own pool and the service's own statements (its lib functions) wherever it does the same
// work; floor-statements.ts holds the rest and says where and why the floor differs.
import crypto from "node:crypto";
import http from "node:http";
import type { ApiCaller } from "@/lib/auth/api-caller-record";
import { hashApiKey, isWellFormedApiKey } from "@/lib/auth/api-key-format";
import { lookupApiCaller } from "@/lib/auth/sql/lookup-api-caller";
import { listProducts } from "@/lib/catalog/sql/list-products";
import { getPool } from "@/lib/db/pool";
import { centsToUsd } from "@/lib/money/cents-to-usd";
import { listKeyOrders } from "@/lib/orders/sql/list-orders";
import { readBalanceCents } from "@/lib/wallet/sql/read-balance";
import { toInvoice } from "@/lib/orders/sql/build-invoice";
import type { OrderRecord } from "@/lib/orders/order-record";
import { formatPublicOrderId, parsePublicOrderId } from "@/lib/orders/public-order-id";
import { ORDER_BY_ID, PLACE_ORDER, RESERVE_ORDER_IDS } from "./floor-statements";

const pool = getPool();

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

async function authenticate(req: http.IncomingMessage): Promise<ApiCaller> {
  const key = req.headers["x-api-key"];
  if (typeof key !== "string" || !isWellFormedApiKey(key))
    throw new HttpError(401, { success: false, error: "INVALID_API_KEY", code: "INVALID_API_KEY" });
  const caller = await lookupApiCaller(hashApiKey(key));
  if (!caller) throw new HttpError(401, { success: false, error: "INVALID_API_KEY", code: "INVALID_API_KEY" });
  if (caller.bannedAt || caller.apiDisabledByAdmin || !caller.apiEnabled)
    throw new HttpError(403, { success: false, error: "API_DISABLED", code: "API_DISABLED" });
  return caller;
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

// Order ids reserved in blocks; an id whose statement wrote no order goes back.
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

const invoice = (order: OrderRecord) => ({ success: true, ...toInvoice(order) });

async function placeOrder(caller: ApiCaller, body: Row): Promise<unknown> {
  const pid = body.pid ?? body.PID;
  const trxid = body.trxid ?? body.trxId ?? body.idtrx ?? body.idTrx;
  const userId = body.userId ?? body.userID;
  if (typeof pid !== "string" || typeof trxid !== "string") throw invalidRequest();
  const idempotencyKey = typeof body.idempotencyKey === "string" ? body.idempotencyKey : trxid;
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
            formatPublicOrderId("", id).slice("SVCAPI--".length),
            caller.keyId,
            trxid,
            fingerprint,
            userId,
            `api-key:${caller.keyId}`,
            `evt_${crypto.randomBytes(16).toString("base64url")}`,
            caller.priceTierId,
          ],
        })
      ).rows[0];
    } catch (error) {
      freeIds.push(id);
      // The key's original committed between this statement's snapshot and its insert: read it now.
      if ((error as { code?: string }).code === "23505" && attempt === 1) continue;
      throw error;
    }
    const { locked, existing, known, orderable, jobs: _, deliveries: __, ...order } = row;
    if (existing || order.id === null) freeIds.push(id);
    if (!locked)
      throw new HttpError(429, { success: false, error: "DUPLICATE_IN_FLIGHT", code: "DUPLICATE_IN_FLIGHT" });
    if (order.id !== null) return invoice(order as OrderRecord);
    if (!known) throw new HttpError(400, { success: false, error: "UNKNOWN PID" });
    if (!orderable) throw new HttpError(400, { success: false, error: "GAME DISABLED" });
    throw new Error(`no order placed for key ${caller.keyId} and trxid ${trxid}`);
  }
}

async function readOrder(caller: ApiCaller, reference: string): Promise<unknown> {
  const id = parsePublicOrderId(reference) ?? (/^\d{1,9}$/.test(reference) ? Number(reference) : undefined);
  const rows =
    id === undefined
      ? []
      : (
          await pool.query<OrderRecord>({
            name: "order-by-public-id",
            text: ORDER_BY_ID,
            values: [id, caller.accountId],
          })
        ).rows;
  const [row] = rows;
  if (!row) throw new HttpError(404, { success: false, error: "ORDER NOT FOUND" });
  return invoice(row);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  try {
    if (req.method === "GET" && pathname === "/balance") {
      const caller = await authenticate(req);
      const balanceUsd = centsToUsd(await readBalanceCents(caller.accountId));
      return send(res, 200, { success: true, balanceUsd, currency: "USD" });
    }
    if (req.method === "GET" && (pathname === "/products" || pathname === "/catalog")) {
      const caller = await authenticate(req);
      const products = await listProducts(caller.priceTierId);
      return send(res, 200, { success: true, products });
    }
    if (req.method === "GET" && pathname === "/history") {
      const caller = await authenticate(req);
      const limit = Number(new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1)).get("limit") ?? 30);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalidRequest();
      const page = await listKeyOrders({ accountId: caller.accountId, keyId: caller.keyId }, limit);
      const orders = page.orders.map((row) => toInvoice(row));
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
