// The load: which requests each endpoint gets, autocannon at fixed concurrency for throughput and
// tail latency, and a one-connection probe for the per-request cost. Latencies are recorded from
// autocannon's per-response events (0.001 ms resolution; its own percentiles are whole ms).
import http from "node:http";
import autocannon, { type AutocannonRequest } from "autocannon";

export type EndpointName = "balance" | "products" | "order" | "history" | "place";

export const ENDPOINTS: { name: EndpointName; label: string }[] = [
  { name: "balance", label: "GET /balance" },
  { name: "products", label: "GET /products" },
  { name: "order", label: "GET /orders/:id" },
  { name: "history", label: "GET /history" },
  { name: "place", label: "POST /orders" },
];

/** The sandbox's ordinary player: every top-up to it completes. */
export const PLACE_PID = "SVCBR60";
export const PLACE_USER_ID = "1234567";

export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Keys are split in two regions. "limited": for servers that enforce the per-key limits (10/s,
 * 80/min); "open": for those that do not (the auth-off service, the floor). Each cursor takes the
 * next block of its region, so a block's keys were not used in the minute before as long as the
 * region is large enough.
 */
export type KeyRegion = "limited" | "open";

/** Share of the keys reserved for the limited region. */
const LIMITED_SHARE = 0.75;

/** Walks a block of keys round-robin; one per server and endpoint. */
export interface KeyCursor {
  readonly size: number;
  next(): number;
}

/**
 * Builds every request the bench sends: the cursor's next key (keys[k] belongs to account
 * k mod A), a fresh trxid for placements, one of the key's own account's orders for reads.
 */
export class RequestFactory {
  private trxSeq = 0;
  private readSeq = 0;
  private readonly regions: Record<KeyRegion, { start: number; size: number; next: number }>;

  constructor(
    private readonly keys: string[],
    /** Public ids of orders placed beforehand, per account index (keys[i] -> account i % A). */
    private ordersByAccount: string[][] = [],
  ) {
    const limited = Math.max(1, Math.floor(keys.length * LIMITED_SHARE));
    this.regions = {
      limited: { start: 0, size: limited, next: 0 },
      open: { start: limited, size: Math.max(1, keys.length - limited), next: 0 },
    };
  }

  setOrders(ordersByAccount: string[][]): void {
    this.ordersByAccount = ordersByAccount;
  }

  /** A cursor over the next `count` keys of `region` (at most the whole region). */
  cursor(region: KeyRegion, count: number): KeyCursor {
    const r = this.regions[region];
    const size = Math.min(Math.max(1, Math.ceil(count)), r.size);
    const offset = r.next;
    r.next = (r.next + size) % r.size;
    let used = 0;
    return { size, next: () => r.start + ((offset + (used++ % size)) % r.size) };
  }

  request(endpoint: EndpointName, trxPrefix: string, cursor: KeyCursor): RequestSpec {
    const keyIndex = cursor.next();
    const headers: Record<string, string> = { "x-api-key": this.keys[keyIndex]! };
    switch (endpoint) {
      case "balance":
        return { method: "GET", path: "/balance", headers };
      case "products":
        return { method: "GET", path: "/products", headers };
      case "history":
        return { method: "GET", path: "/history", headers };
      case "order": {
        // The key's own account (keys[k] belongs to account k % A), one of its orders in turn.
        const accounts = this.ordersByAccount.length;
        const own = this.ordersByAccount[keyIndex % accounts]!;
        const orderId = own[(Math.floor(keyIndex / accounts) + this.readSeq++) % own.length]!;
        return { method: "GET", path: `/orders/${encodeURIComponent(orderId)}`, headers };
      }
      case "place":
        headers["content-type"] = "application/json";
        return {
          method: "POST",
          path: "/orders",
          headers,
          body: JSON.stringify({ pid: PLACE_PID, trxid: `${trxPrefix}-${++this.trxSeq}`, userId: PLACE_USER_ID }),
        };
    }
  }
}

export interface LoadOptions {
  port: number;
  connections: number;
  durationSeconds?: number;
  amount?: number;
  overallRate?: number;
  endpoint: EndpointName;
  trxPrefix: string;
  factory: RequestFactory;
  cursor: KeyCursor;
}

export interface LoadResult {
  seconds: number;
  /** Every response's time in ms, in arrival order. */
  latencies: number[];
  ok: number;
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  sent: number;
  statusCodes: Record<string, number>;
}

/** One autocannon run; every request gets the cursor's next key (and a fresh trxid) through setupRequest. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const setupRequest = (request: AutocannonRequest): AutocannonRequest => {
    const spec = options.factory.request(options.endpoint, options.trxPrefix, options.cursor);
    request.method = spec.method;
    request.path = spec.path;
    request.headers = spec.headers;
    if (spec.body !== undefined) request.body = spec.body;
    return request;
  };
  const latencies: number[] = [];
  const instance = autocannon({
    url: `http://127.0.0.1:${options.port}`,
    connections: options.connections,
    // autocannon rejects keys that are present but undefined.
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSeconds ?? 10 }),
    ...(options.overallRate !== undefined ? { overallRate: options.overallRate } : {}),
    timeout: 10,
    requests: [{ setupRequest }],
  });
  instance.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
  const result = await instance;
  return {
    seconds: result.duration,
    latencies,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    sent: result.requests.sent,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count])),
  };
}

/** The median of finite values; NaN when there are none. */
export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export interface ProbeResult {
  p50: number;
  p99: number;
  non2xx: number;
}

/**
 * `count` requests one after another on one kept-alive connection (after 10 unrecorded ones): the
 * per-request time, without queueing. Appends to `times`; returns how many were not 2xx.
 */
export async function probeLatency(
  port: number,
  endpoint: EndpointName,
  trxPrefix: string,
  factory: RequestFactory,
  cursor: KeyCursor,
  count: number,
  times: number[],
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let non2xx = 0;
  try {
    for (let i = -10; i < count; i++) {
      const spec = factory.request(endpoint, trxPrefix, cursor);
      const started = process.hrtime.bigint();
      const status = await send(port, spec, agent);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (i < 0) continue;
      times.push(ms);
      if (status < 200 || status > 299) non2xx++;
    }
  } finally {
    agent.destroy();
  }
  return non2xx;
}

/** One request to 127.0.0.1:port, its body read and dropped; resolves to the status. */
export function send(port: number, spec: RequestSpec, agent: http.Agent): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: spec.method, path: spec.path, headers: spec.headers, agent },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(spec.body);
  });
}

/** Sends `count` requests with one key back to back: does the server enforce per-key limits? */
export async function probeRateLimit(port: number, key: string, count = 15): Promise<Record<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<number, number> = {};
  try {
    for (let i = 0; i < count; i++) {
      const status = await send(port, { method: "GET", path: "/balance", headers: { "x-api-key": key } }, agent);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}
