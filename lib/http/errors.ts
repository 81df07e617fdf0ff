// The one error catalogue: every failure body of the public API is built here, from SPEC.md
// sections 5 and 7. Rule for section 7's bare strings: the string goes in `error`, and when it has
// no spaces it goes in `code` too, so clients that switch on `code` find it.

interface CatalogueEntry {
  status: number;
  error: string;
  code?: string;
}

export const errorCatalogue = {
  // Section 5: authentication and access. `error` is a human message, `code` the contract.
  MISSING_API_KEY: { status: 401, code: "MISSING_API_KEY", error: "API key missing: send X-API-Key or Authorization: Bearer" },
  INVALID_API_KEY_FORMAT: { status: 401, code: "INVALID_API_KEY_FORMAT", error: "API key is malformed: expected svc_ followed by 40 letters and digits" },
  INVALID_API_KEY: { status: 401, code: "INVALID_API_KEY", error: "API key is unknown or revoked" },
  API_DISABLED: { status: 403, code: "API_DISABLED", error: "API access is turned off for this account: send /api on to the bot" },
  API_DISABLED_BY_ADMIN: { status: 403, code: "API_DISABLED_BY_ADMIN", error: "API access was turned off for this account by an administrator" },
  API_NOT_ELIGIBLE: { status: 403, code: "API_NOT_ELIGIBLE", error: "This account does not meet the rules for API use yet" },
  ACCOUNT_BANNED: { status: 403, code: "ACCOUNT_BANNED", error: "This account is banned" },
  ACCOUNT_RESTRICTED: { status: 403, code: "ACCOUNT_RESTRICTED", error: "This account is temporarily restricted" },
  IP_ALLOWLIST_REQUIRED: { status: 403, code: "IP_ALLOWLIST_REQUIRED", error: "This key requires an IP allowlist and its list is empty: add an address in the bot" },
  IP_NOT_ALLOWED: { status: 403, code: "IP_NOT_ALLOWED", error: "Your IP address is not on this key's allowlist" },

  // Section 7.
  INVALID_BODY: { status: 400, error: "INVALID BODY" },
  INVALID_REQUEST: { status: 400, error: "INVALID REQUEST" },
  UNKNOWN_PID: { status: 400, error: "UNKNOWN PID" },
  GAME_DISABLED: { status: 400, error: "GAME DISABLED" },
  INVALID_PRODUCT: { status: 400, error: "INVALID PRODUCT", code: "INVALID_PRODUCT" },
  PRODUCT_DISABLED: { status: 400, error: "PRODUCT DISABLED", code: "PRODUCT_DISABLED" },
  QUANTITY_ONLY_FOR_STOCK_LINES: { status: 400, error: "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD" },
  INSUFFICIENT_STOCK: { status: 400, error: "INSUFFICIENT STOCK", code: "INSUFFICIENT_STOCK" },
  INVALID_JSON: { status: 401, error: "INVALID JSON" },
  FORBIDDEN: { status: 403, error: "FORBIDDEN", code: "FORBIDDEN" },
  ORDER_NOT_FOUND: { status: 404, error: "ORDER NOT FOUND" },
  IDEMPOTENCY_MISMATCH: { status: 409, error: "TRXID REUSED WITH DIFFERENT REQUEST", code: "IDEMPOTENCY_MISMATCH" },
  DUPLICATE_IN_FLIGHT: { status: 429, error: "DUPLICATE_IN_FLIGHT", code: "DUPLICATE_IN_FLIGHT" },
  RATE_LIMIT: { status: 429, error: "TOO MANY REQUESTS", code: "RATE_LIMIT" },
  NOT_IMPLEMENTED: { status: 501, error: "NOT IMPLEMENTED" },
  MAINTENANCE: { status: 503, error: "MAINTENANCE", code: "MAINTENANCE" },
  API_ORDER_DISABLED: { status: 503, error: "API_ORDER_DISABLED", code: "API_ORDER_DISABLED" },
  RATE_LIMIT_UNAVAILABLE: { status: 503, error: "RATE_LIMIT_UNAVAILABLE", code: "RATE_LIMIT_UNAVAILABLE" },

  // Verify and redeem (their bodies are not shown in the spec; defined here).
  PLAYER_NOT_FOUND: { status: 404, error: "PLAYER NOT FOUND", code: "PLAYER_NOT_FOUND" },
  INVALID_CODE: { status: 400, error: "INVALID CODE", code: "INVALID_CODE" },
  CODE_USED: { status: 409, error: "CODE ALREADY USED", code: "CODE_USED" },
  SUPPLIER_UNAVAILABLE: { status: 503, error: "SUPPLIER UNAVAILABLE: try again shortly", code: "SUPPLIER_UNAVAILABLE" },

  // HTTP-level failures the spec leaves open, in the same shape.
  NOT_FOUND: { status: 404, error: "NOT FOUND", code: "NOT_FOUND" },
  METHOD_NOT_ALLOWED: { status: 405, error: "METHOD NOT ALLOWED", code: "METHOD_NOT_ALLOWED" },
  PAYLOAD_TOO_LARGE: { status: 413, error: "PAYLOAD TOO LARGE", code: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, error: "UNSUPPORTED MEDIA TYPE: send Content-Type: application/json", code: "UNSUPPORTED_MEDIA_TYPE" },
  SERVICE_UNAVAILABLE: { status: 503, error: "SERVICE UNAVAILABLE", code: "SERVICE_UNAVAILABLE" },
  INTERNAL_ERROR: { status: 500, error: "INTERNAL ERROR", code: "INTERNAL_ERROR" },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorKey = keyof typeof errorCatalogue;

/** Thrown anywhere below a handler; the wrapper turns it into the catalogue's response. */
export class ApiError extends Error {
  constructor(
    readonly key: ErrorKey,
    readonly options: { message?: string; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(options.message ?? errorCatalogue[key].error);
  }
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
}

export function errorBody(key: ErrorKey, message?: string, extra?: Record<string, unknown>) {
  const entry: CatalogueEntry = errorCatalogue[key];
  return {
    success: false as const,
    error: message ?? entry.error,
    ...(entry.code ? { code: entry.code } : {}),
    ...extra,
  };
}

export function errorResponse(key: ErrorKey, options: ApiError["options"] = {}): Response {
  return jsonResponse(errorBody(key, options.message, options.extra), errorCatalogue[key].status, options.headers);
}
