// The hand-written layer over the generated client: one typed method per operation (generated from
// the OpenAPI document: ./generated/operations.ts), the API key on every request, retries
// (./retry.ts), typed errors (./errors.ts), long-poll waiting and iterators over the paged lists.
// `client.http` is the generated openapi-fetch client itself, for anything this layer does not wrap.
import createFetchClient from "openapi-fetch";
import type { components, paths } from "./generated/openapi.js";
import { operationMethods } from "./generated/operations.js";
import { errorFromResponse, TopupApiError } from "./errors.js";
import { createRetryingFetch, type RetryOptions } from "./retry.js";
import type { CallOptions, Ok, OperationRequest, Query, RequestBody, Send } from "./operation-types.js";

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

  /** One operation's request, sent as openapi-fetch sends it: for the generated methods. */
  const send: Send = async (method, path, { path: pathParams, query, body }: OperationRequest, call) => {
    const request = http.request as (method: string, path: string, init: object) => ReturnType<typeof http.GET>;
    const init = { params: { path: pathParams, query: stringify(query) }, body, signal: call.signal };
    return (await unwrap(request(method, path, init))).data as never;
  };
  const operations = operationMethods(send);

  const client = {
    /** The generated openapi-fetch client (same base URL, key and retries). */
    http,

    ...operations,

    // Where the client adds to an operation's plain call, its method replaces the generated one.

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

    /** GET /orders/{orderId}: by public id, your trxid, your idempotency key or the order number (docs/api.md). */
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

    /** GET /ledger: one page of your wallet statement, newest first, as JSON. */
    getLedger: (query: Omit<LedgerQuery, "format" | "from" | "to"> = {}, call: CallOptions = {}): Promise<LedgerPage> =>
      operations.getLedger({ ...query, format: "json" }, call),

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
  };
  return client;
}

export type TopupClient = ReturnType<typeof createClient>;
