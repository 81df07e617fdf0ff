// The client's one error class. API failures carry the API's `code` (the error reference, generated
// into ./generated/error-codes.ts), its HTTP status and whether sending the same request again can
// succeed. A few outcomes that are not API error bodies get codes of the client's own, listed in
// CLIENT_ERROR_CODES, so one `switch (error.code)` covers everything and TypeScript checks that it
// is exhaustive.
import { ERROR_CODES, type ErrorCode } from "./generated/error-codes.js";

export const CLIENT_ERROR_CODES = {
  /** POST /orders answered 200 with a cancelled invoice: the wallet could not cover it; nothing was charged. */
  INSUFFICIENT_BALANCE: { status: 200, retryable: false },
  /** No answer (connection refused or reset, DNS, timeout of one attempt) within the retry budget. */
  NETWORK_ERROR: { status: 0, retryable: true },
  /** waitForOrder: the order was still unfinished when its timeoutMs ran out. */
  TIMEOUT: { status: 0, retryable: true },
  /** An answer that is not the API's (a proxy's HTML page, a body that is not JSON). */
  UNEXPECTED_RESPONSE: { status: 0, retryable: false },
  /** verifyWebhook: the signature, the timestamp or the body did not verify. */
  WEBHOOK_VERIFICATION_FAILED: { status: 0, retryable: false },
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;
export type TopupErrorCode = ErrorCode | ClientErrorCode;

export interface FieldProblem {
  field: string;
  message: string;
}

export interface TopupApiErrorInit {
  code: TopupErrorCode;
  message: string;
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  details?: FieldProblem[];
  body?: unknown;
  cause?: unknown;
}

export class TopupApiError extends Error {
  override readonly name = "TopupApiError";
  readonly code: TopupErrorCode;
  /** The HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** Whether sending the same request again, unchanged, can succeed (later, or after retryAfterMs). */
  readonly retryable: boolean;
  /** From the answer's Retry-After header, when it had one. */
  readonly retryAfterMs?: number;
  /** INVALID_BODY / INVALID_REQUEST: which fields, and why. */
  readonly details?: FieldProblem[];
  /** The parsed answer body (for INSUFFICIENT_BALANCE: the cancelled invoice). */
  readonly body?: unknown;

  constructor(init: TopupApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    const reference = referenceOf(init.code);
    this.code = init.code;
    this.status = init.status ?? reference.status;
    this.retryable = init.retryable ?? reference.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.details = init.details;
    this.body = init.body;
  }
}

export function isTopupApiError(value: unknown): value is TopupApiError {
  return value instanceof TopupApiError;
}

function referenceOf(code: TopupErrorCode): { status: number; retryable: boolean } {
  return code in ERROR_CODES ? ERROR_CODES[code as ErrorCode] : CLIENT_ERROR_CODES[code as ClientErrorCode];
}

function isApiErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** The error for a non-2xx answer: the API's error body when it is one, UNEXPECTED_RESPONSE otherwise. */
export function errorFromResponse(response: Response, body: unknown): TopupApiError {
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
  const apiBody = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  if (apiBody && isApiErrorCode(apiBody.code)) {
    return new TopupApiError({
      code: apiBody.code,
      message: typeof apiBody.error === "string" ? apiBody.error : apiBody.code,
      status: response.status,
      retryAfterMs,
      details: Array.isArray(apiBody.details) ? (apiBody.details as FieldProblem[]) : undefined,
      body,
    });
  }
  return new TopupApiError({
    code: "UNEXPECTED_RESPONSE",
    message: `HTTP ${response.status} without an API error body`,
    status: response.status,
    // A 429 or 5xx from something in between (a proxy, a load balancer) says "later", not "never".
    retryable: response.status === 429 || response.status >= 500,
    retryAfterMs,
    body,
  });
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
