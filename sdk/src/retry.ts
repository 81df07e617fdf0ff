// Retries under the generated client (openapi-fetch calls this as its `fetch`): network errors, 429
// and 503, waiting what the answer asks (Retry-After, or the RateLimit header's reset of an empty
// window) or a jittered exponential backoff, within a bounded total time.
//
// Only requests that are safe to send twice are retried after a lost answer: reads, POST /orders
// (the body, and so its trxid, is sent byte for byte again, and the API is idempotent on it: a
// retry answers the first order's invoice, never a second purchase), /brvvfy and /mobavfy (they
// change nothing) and /rdmbr with a trxid (idempotent on it). A 429 or 503 from the API means
// nothing was done, so those are retried for every request.
import { parseRetryAfter, TopupApiError } from "./errors.js";

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). 1 turns retries off. */
  maxAttempts?: number;
  /** No retry starts later than this after the first attempt (default 30 000 ms). */
  maxElapsedMs?: number;
  /** First backoff when the answer names no wait (default 250 ms; doubles, at most 8 s, with jitter). */
  baseDelayMs?: number;
  /** A wait the server asks for that is longer than this is not waited for: the error is thrown (default 20 000 ms). */
  maxDelayMs?: number;
}

export interface RetryingFetchOptions extends RetryOptions {
  /** One attempt's time limit (default 30 000 ms); a timed-out attempt counts as a network error. */
  attemptTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** For tests: the clock and the sleep. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Called before each retry (for logging). */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string; method: string; url: string }) => void;
}

const DEFAULTS = {
  maxAttempts: 5,
  maxElapsedMs: 30_000,
  baseDelayMs: 250,
  maxDelayMs: 20_000,
  attemptTimeoutMs: 30_000,
};
const MAX_BACKOFF_MS = 8_000;

/** Seconds until an exhausted window of a `RateLimit: "burst";r=0;t=1, "minute";r=5;t=40` header refills, as ms. */
export function parseRateLimitWait(header: string | null): number | undefined {
  if (!header) return undefined;
  let wait: number | undefined;
  for (const item of header.split(",")) {
    const remaining = /;\s*r=(\d+)/.exec(item);
    const reset = /;\s*t=(\d+)/.exec(item);
    if (remaining && reset && Number(remaining[1]) === 0) wait = Math.max(wait ?? 0, Number(reset[1]) * 1000);
  }
  return wait;
}

/** How long to wait before retrying after this 429/503 answer, or undefined when it names no wait. */
export function serverRequestedDelay(response: Response, now = Date.now()): number | undefined {
  const fromRetryAfter = parseRetryAfter(response.headers.get("retry-after"), now);
  const fromRateLimit = response.status === 429 ? parseRateLimitWait(response.headers.get("ratelimit")) : undefined;
  if (fromRetryAfter === undefined && fromRateLimit === undefined) return undefined;
  return Math.max(fromRetryAfter ?? 0, fromRateLimit ?? 0);
}

function backoffDelay(attempt: number, baseDelayMs: number, random = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half random: spread apart clients that failed together.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Whether sending this request again after a lost answer cannot do anything twice. */
export function isReplaySafe(method: string, pathname: string, body: string | undefined): boolean {
  if (method === "GET" || method === "HEAD") return true;
  if (method !== "POST") return false;
  const path = pathname.replace(/\/+$/, "");
  if (/\/(orders|brvvfy|mobavfy)$/.test(path)) return true;
  if (/\/rdmbr$/.test(path)) {
    try {
      const parsed = JSON.parse(body ?? "");
      return parsed?.trxid !== undefined && parsed.trxid !== null && parsed.trxid !== "";
    } catch {
      return false;
    }
  }
  return false;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function createRetryingFetch(options: RetryingFetchOptions = {}): (request: Request) => Promise<Response> {
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;

  return async (request: Request) => {
    // Read the body once: every attempt sends exactly these bytes (for POST /orders, the same trxid).
    const body = request.body === null ? undefined : await request.text();
    const url = request.url;
    const method = request.method;
    const replaySafe = isReplaySafe(method, new URL(url).pathname, body);
    const callerSignal = request.signal;
    const deadline = now() + settings.maxElapsedMs;

    for (let attempt = 1; ; attempt++) {
      const signal = AbortSignal.any([callerSignal, AbortSignal.timeout(settings.attemptTimeoutMs)]);
      let response: Response;
      try {
        response = await fetchImpl(
          new Request(url, { method, headers: request.headers, body, signal, redirect: request.redirect }),
        );
      } catch (error) {
        if (callerSignal.aborted) throw error;
        const failure = new TopupApiError({
          code: "NETWORK_ERROR",
          message: `${method} ${new URL(url).pathname}: no answer (${describe(error)})${attempt > 1 ? ` after ${attempt} attempts` : ""}`,
          cause: error,
        });
        if (!replaySafe || attempt >= settings.maxAttempts) throw failure;
        const delayMs = backoffDelay(attempt, settings.baseDelayMs);
        if (now() + delayMs > deadline) throw failure;
        options.onRetry?.({ attempt, delayMs, reason: describe(error), method, url });
        await sleep(delayMs, callerSignal);
        continue;
      }

      if ((response.status !== 429 && response.status !== 503) || attempt >= settings.maxAttempts) return response;
      const requested = serverRequestedDelay(response, now());
      const delayMs = requested ?? backoffDelay(attempt, settings.baseDelayMs);
      // A wait past the budget is not waited out: the caller gets the answer (and its Retry-After) now.
      if (delayMs > settings.maxDelayMs || now() + delayMs > deadline) return response;
      await response.body?.cancel();
      options.onRetry?.({ attempt, delayMs, reason: `HTTP ${response.status}`, method, url });
      await sleep(delayMs, callerSignal);
    }
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    // fetch's own message is "fetch failed"; the cause says what happened (ECONNRESET, ECONNREFUSED, ...).
    const detail =
      cause instanceof Error ? ("code" in cause && cause.code ? String(cause.code) : cause.message) : undefined;
    return detail ? `${error.message}: ${detail}` : error.message;
  }
  return String(error);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
