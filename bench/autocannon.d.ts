// The part of autocannon 8's API the bench uses (the package ships no types, and @types/autocannon
// is not installed). Field names follow autocannon's lib/aggregateResult.js.
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Called before every request of its slot (it makes autocannon rebuild the request each time). */
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
    onResponse?: (
      status: number,
      body: string,
      context: Record<string, unknown>,
      headers: Record<string, string>,
    ) => void;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    pipelining?: number;
    overallRate?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: AutocannonRequest[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    [percentile: string]: number;
  }

  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  interface AutocannonInstance extends EventEmitter, PromiseLike<AutocannonResult> {
    stop(): void;
    /** Every response: the client, its status, bytes, and its time in ms (fractional). */
    on(
      event: "response",
      listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
    ): this;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter's own listener type
    on(event: string, listener: (...args: any[]) => void): this;
  }

  function autocannon(options: AutocannonOptions): AutocannonInstance;
  export default autocannon;
}
