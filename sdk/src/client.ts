// The hand-written layer over the generated client: one typed method per operation, the API key on
// every request, retries (./retry.ts), typed errors (./errors.ts), long-poll waiting and iterators
// over the paged lists. `client.http` is the generated openapi-fetch client itself, for anything
// this layer does not wrap.
import createFetchClient from "openapi-fetch";
import type { components, paths } from "./generated/openapi.js";
import { errorFromResponse, TopupApiError } from "./errors.js";
import { createRetryingFetch, type RetryOptions } from "./retry.js";

type JsonBody<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Ok<P extends keyof paths, M extends "get" | "post"> = paths[P][M] extends { responses: { 200: infer R } }
  ? JsonBody<R>
  : never;
type RequestBody<P extends keyof paths> = paths[P]["post"] extends { requestBody?: infer B }
  ? JsonBody<NonNullable<B>>
  : never;
/** Query parameters arrive at the API as text; the client takes numbers where the API reads numbers. */
type Numeric<Q> = {
  [K in keyof Q]?: Q[K] extends string | undefined ? (string extends NonNullable<Q[K]> ? string | number : Q[K]) : Q[K];
};
type Query<P extends keyof paths> = paths[P]["get"] extends { parameters: { query?: infer Q } }
  ? Numeric<NonNullable<Q>>
  : never;

export type Invoice = components["schemas"]["Invoice"];
export type Product = components["schemas"]["Product"];
export type Service = components["schemas"]["Service"];
export type Balance = components["schemas"]["Balance"];
export type Verification = components["schemas"]["Verification"];
export type Redemption = components["schemas"]["Redemption"];
export type WebhookEventRecord = components["schemas"]["WebhookEvent"];
export type OrderRequest = RequestBody<"/orders">;
export type HistoryPage = Ok<"/history", "get">;
export type LedgerPage = Ok<"/ledger", "get">;
export type LedgerEntry = LedgerPage["entries"][number];
export type LedgerQuery = Query<"/ledger">;
export type OrderReferenceKind = NonNullable<
  NonNullable<paths["/orders/{orderId}"]["get"]["parameters"]["query"]>["by"]
>;

export interface ClientOptions {
  /** The service's origin, e.g. "https://api.example.com" (or with "/api"). */
  baseUrl: string;
  /** Your key: svc_ followed by 40 letters and digits. */
  apiKey: string;
  /** Retries on network errors, 429 and 503; `false` sends every request once. */
  retry?: RetryOptions | false;
  /** One attempt's time limit (default 30 000 ms; waitForOrder adds its wait to it). */
  timeoutMs?: number;
  /** Another fetch (a proxy agent, a test double). */
  fetch?: typeof globalThis.fetch;
  /** Called before each retry: the attempt that failed, why, and the wait. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string; method: string; url: string }) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface PlacedOrder {
  invoice: Invoice;
  /** true when the API answered the invoice of an earlier request with the same trxid (Idempotent-Replayed). */
  replayed: boolean;
}

const TERMINAL = new Set<Invoice["status"]>(["completed", "cancelled"]);
const MAX_WAIT_SECONDS = 30;

function stringify<Q extends Record<string, unknown>>(query: Q | undefined): Record<string, string> | undefined {
  if (!query) return undefined;
  const entries = Object.entries(query).filter(([, value]) => value !== undefined && value !== null);
  return Object.fromEntries(entries.map(([key, value]) => [key, String(value)]));
}

/** A fresh trxid for callers that do not bring their own (your own order id is better: see placeOrder). */
function newTrxid(): string {
  return `sdk-${globalThis.crypto.randomUUID()}`;
}

export function createClient(options: ClientOptions) {
  const retry = options.retry === false ? { maxAttempts: 1 } : (options.retry ?? {});
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retrying = (attemptTimeoutMs = timeoutMs) =>
    createRetryingFetch({ ...retry, attemptTimeoutMs, fetch: options.fetch, onRetry: options.onRetry });
  const defaultFetch = retrying();

  const http = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { "x-api-key": options.apiKey },
    fetch: defaultFetch,
  });

  /** The 200 body, or the answer as a TopupApiError. */
  async function unwrap<T>(
    pending: Promise<{ data?: T; error?: unknown; response: Response }>,
  ): Promise<{ data: T; response: Response }> {
    let result: { data?: T; error?: unknown; response: Response };
    try {
      result = await pending;
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new TopupApiError({
          code: "UNEXPECTED_RESPONSE",
          message: `a 2xx answer that is not JSON: ${error.message}`,
          cause: error,
        });
      }
      throw error;
    }
    if (!result.response.ok) throw errorFromResponse(result.response, result.error);
    if (typeof result.data !== "object" || result.data === null) {
      throw new TopupApiError({
        code: "UNEXPECTED_RESPONSE",
        message: "a 2xx answer without a JSON object",
        status: result.response.status,
        body: result.data,
      });
    }
    return { data: result.data, response: result.response };
  }

  const client = {
    /** The generated openapi-fetch client (same base URL, key and retries). */
    http,

    /** GET /services: game lines and the fields their orders require. */
    async listServices(call: CallOptions = {}): Promise<Ok<"/services", "get">> {
      return (await unwrap(http.GET("/services", { signal: call.signal }))).data;
    },

    /** GET /products: every pack you can order, with its price and stock. */
    async listProducts(call: CallOptions = {}): Promise<Ok<"/products", "get">> {
      return (await unwrap(http.GET("/products", { signal: call.signal }))).data;
    },

    /** GET /catalog. */
    async getCatalog(call: CallOptions = {}): Promise<Ok<"/catalog", "get">> {
      return (await unwrap(http.GET("/catalog", { signal: call.signal }))).data;
    },

    /** GET /my-ip: the address the API sees (answers even where the key's allowlist refuses it). */
    async getMyIp(call: CallOptions = {}): Promise<Ok<"/my-ip", "get">> {
      return (await unwrap(http.GET("/my-ip", { signal: call.signal }))).data;
    },

    /** GET /balance. (POST /balance is not wrapped: it is always 501, wallets are funded in the bot.) */
    async getBalance(call: CallOptions = {}): Promise<Balance> {
      return (await unwrap(http.GET("/balance", { signal: call.signal }))).data;
    },

    /**
     * POST /orders. Pass your own `trxid` (your order id): it is the idempotency key, so the same
     * purchase sent again (by you after a crash, or by the client's retries, which resend the very
     * same body) answers the first invoice instead of buying twice. Without one, the client makes one
     * for this call (it is in the invoice). An order the wallet cannot cover is thrown as
     * INSUFFICIENT_BALANCE with the cancelled invoice as `body`: nothing was charged.
     */
    async placeOrder(
      order: Omit<OrderRequest, "trxid"> & { trxid?: OrderRequest["trxid"] },
      call: CallOptions = {},
    ): Promise<PlacedOrder> {
      const body = { ...order, trxid: order.trxid ?? newTrxid() } as OrderRequest;
      const { data, response } = await unwrap(http.POST("/orders", { body, signal: call.signal }));
      const { success: _success, ...invoice } = data;
      if (!invoice.orderCreated && invoice.error === "INSUFFICIENT BALANCE") {
        throw new TopupApiError({
          code: "INSUFFICIENT_BALANCE",
          message: "INSUFFICIENT BALANCE: nothing was charged",
          status: response.status,
          body: invoice,
        });
      }
      return { invoice, replayed: response.headers.get("idempotent-replayed") === "true" };
    },

    /** GET /orders/{orderId}: by public id, your trxid, your idempotency key or the numeric id. */
    async getOrder(
      orderId: string,
      query: { wait?: number; by?: OrderReferenceKind } = {},
      call: CallOptions = {},
    ): Promise<Invoice & { matchedBy: string | null }> {
      const wait = query.wait ?? 0;
      const { data, response } = await unwrap(
        http.GET("/orders/{orderId}", {
          params: { path: { orderId }, query: stringify(query) },
          signal: call.signal,
          // A held answer takes up to `wait` seconds: give the attempt that much more time.
          fetch: wait > 0 ? retrying(timeoutMs + wait * 1000) : defaultFetch,
        }),
      );
      const { success: _success, ...invoice } = data;
      return { ...invoice, matchedBy: response.headers.get("order-matched-by") };
    },

    /**
     * Resolves with the order once it is completed or cancelled, holding each request open on the
     * server (`?wait=`) instead of polling. Throws TIMEOUT when it is still unfinished after timeoutMs.
     */
    async waitForOrder(
      orderId: string,
      { timeoutMs = 60_000, signal }: { timeoutMs?: number } & CallOptions = {},
    ): Promise<Invoice> {
      const deadline = Date.now() + timeoutMs;
      let last: Invoice | undefined;
      for (;;) {
        const remaining = deadline - Date.now();
        const wait = Math.min(MAX_WAIT_SECONDS, Math.floor(remaining / 1000));
        if (last && wait <= 0) {
          throw new TopupApiError({
            code: "TIMEOUT",
            message: `order ${orderId} still ${last.status} after ${timeoutMs} ms`,
            body: last,
          });
        }
        const { matchedBy: _matchedBy, ...invoice } = await client.getOrder(
          orderId,
          { wait: Math.max(0, wait) },
          { signal },
        );
        if (TERMINAL.has(invoice.status)) return invoice;
        last = invoice;
      }
    },

    /** GET /history: this key's orders, newest first (`limit`, or `page` and `pageSize`). */
    async getHistory(query: Query<"/history"> = {}, call: CallOptions = {}): Promise<HistoryPage> {
      return (await unwrap(http.GET("/history", { params: { query: stringify(query) }, signal: call.signal }))).data;
    },

    /** Every order of this key, newest first, page after page (`pageSize` 1-50, default 50). */
    async *iterateHistory({
      pageSize = 50,
      signal,
    }: { pageSize?: number } & CallOptions = {}): AsyncGenerator<Invoice> {
      // Orders placed meanwhile push older ones onto later pages: skip the ones already seen.
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const result = await client.getHistory({ page, pageSize }, { signal });
        for (const order of result.orders) {
          if (seen.has(order.orderId)) continue;
          seen.add(order.orderId);
          yield order;
        }
        if (!result.hasMore || result.orders.length === 0) return;
      }
    },

    /** GET /ledger: one page of your wallet statement, newest first. */
    async getLedger(
      query: Omit<LedgerQuery, "format" | "from" | "to"> = {},
      call: CallOptions = {},
    ): Promise<LedgerPage> {
      const { data } = await unwrap(
        http.GET("/ledger", { params: { query: { ...stringify(query), format: "json" } }, signal: call.signal }),
      );
      // The document lists a text/csv answer too (format=csv); format=json always answers the JSON page.
      return data as LedgerPage;
    },

    /** Every ledger entry, newest first, page after page (`pageSize` 1-500, default 500); other filters pass through. */
    async *iterateLedger({
      pageSize = 500,
      signal,
      ...filters
    }: Omit<LedgerQuery, "page" | "format" | "from" | "to"> & CallOptions = {}): AsyncGenerator<LedgerEntry> {
      // Newest first with growing ids: an entry written meanwhile shifts the pages by one, so
      // anything not older than the last entry yielded was seen already.
      let lastId = Number.POSITIVE_INFINITY;
      for (let page = 1; ; page++) {
        const result = await client.getLedger({ ...filters, page, pageSize }, { signal });
        for (const entry of result.entries) {
          if (entry.id >= lastId) continue;
          lastId = entry.id;
          yield entry;
        }
        if (!result.hasMore || result.entries.length === 0) return;
      }
    },

    /** POST /brvvfy: check a Battle Royale player id. */
    async verifyBrPlayer(body: RequestBody<"/brvvfy">, call: CallOptions = {}): Promise<Verification> {
      return (await unwrap(http.POST("/brvvfy", { body, signal: call.signal }))).data;
    },

    /** POST /mobavfy: check a MOBA user id and zone. */
    async verifyMobaPlayer(body: RequestBody<"/mobavfy">, call: CallOptions = {}): Promise<Verification> {
      return (await unwrap(http.POST("/mobavfy", { body, signal: call.signal }))).data;
    },

    /** POST /rdmbr: redeem a code for a player (idempotent on `trxid` when you send one). */
    async redeemCode(body: RequestBody<"/rdmbr">, call: CallOptions = {}): Promise<Redemption> {
      return (await unwrap(http.POST("/rdmbr", { body, signal: call.signal }))).data;
    },

    /** GET /events: your webhook events after a sequence number, oldest first. */
    async listEvents(query: Query<"/events"> = {}, call: CallOptions = {}): Promise<Ok<"/events", "get">> {
      return (await unwrap(http.GET("/events", { params: { query: stringify(query) }, signal: call.signal }))).data;
    },

    /** Every webhook event after `after` (default 0: from the first), oldest first. */
    async *iterateEvents({
      after = 0,
      limit = 500,
      signal,
    }: { after?: number; limit?: number } & CallOptions = {}): AsyncGenerator<WebhookEventRecord> {
      let cursor = after;
      for (;;) {
        const result = await client.listEvents({ after: cursor, limit }, { signal });
        for (const event of result.events) {
          cursor = Math.max(cursor, event.sequence);
          yield event;
        }
        if (!result.hasMore || result.events.length === 0) return;
      }
    },

    /** POST /webhooks/replay: re-send events by sequence range or ids. */
    async replayWebhooks(
      body: RequestBody<"/webhooks/replay">,
      call: CallOptions = {},
    ): Promise<Ok<"/webhooks/replay", "post">> {
      return (await unwrap(http.POST("/webhooks/replay", { body, signal: call.signal }))).data;
    },
  };
  return client;
}

export type TopupClient = ReturnType<typeof createClient>;
