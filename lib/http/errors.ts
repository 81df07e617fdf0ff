// The one error catalogue: every failure body of the public API is built here, and the error reference
// (docs/errors.md) and the OpenAPI document's `x-error-codes` are generated from it.
//
// Each entry's key is its `code`, so every failure carries one. Where the API's documented error
// string has spaces ("ORDER NOT FOUND"), the code is the same words joined by underscores
// ("ORDER_NOT_FOUND"); `error` stays the documented string.
import { API_SECURITY_HEADERS } from "./security-headers";

export interface ErrorReference {
  status: number;
  /** The body's `error` string (a request may replace it with a more precise message). */
  error: string;
  /** When it happens. */
  when: string;
  /** Whether sending the same request again, unchanged, can succeed (later, or after the stated wait). */
  retryable: boolean;
  /** What the client should do. */
  action: string;
  /** true when every answer with this code carries `Retry-After` (seconds); the OpenAPI document declares it. */
  retryAfter?: true;
}

export const errorCatalogue = {
  // Authentication and access (docs/api.md). `error` is a human message, `code` the contract's.
  MISSING_API_KEY: {
    status: 401,
    error: "API key missing: send X-API-Key or Authorization: Bearer",
    when: "No `X-API-Key` header and no `Authorization: Bearer` token.",
    retryable: false,
    action: "Send your key in one of the two headers.",
  },
  INVALID_API_KEY_FORMAT: {
    status: 401,
    error: "API key is malformed: expected svc_ followed by 40 letters and digits",
    when: "The key is not `svc_` (a test key: `svc_test_`) followed by 40 letters and digits.",
    retryable: false,
    action: "Check the key for truncation or extra characters; keys are issued by the bot's /newkey.",
  },
  INVALID_API_KEY: {
    status: 401,
    error: "API key is unknown or revoked",
    when: "No live key has this value (unknown, or revoked in the bot).",
    retryable: false,
    action: "Use a current key; create one with the bot's /newkey.",
  },
  TEST_MODE_OFF: {
    status: 401,
    error: "Test mode is turned off on this service: use a live key",
    when: "A test key (`svc_test_`) was sent to a deployment that runs with TEST_MODE=0.",
    retryable: false,
    action: "Use a live key, or ask the operator whether test mode will return.",
  },
  API_DISABLED: {
    status: 403,
    error: "API access is turned off for this account: send /api on to the bot",
    when: "The account holder has not turned API access on.",
    retryable: false,
    action: "Send /api on to the bot, then retry.",
  },
  API_DISABLED_BY_ADMIN: {
    status: 403,
    error: "API access was turned off for this account by an administrator",
    when: "An administrator blocked API access for the account.",
    retryable: false,
    action: "Contact support; retrying does not help until access is restored.",
  },
  API_NOT_ELIGIBLE: {
    status: 403,
    error: "This account does not meet the rules for API use yet",
    when: "The eligibility rule is on and the account does not meet it yet (age or total funding); or, on `/brvvfy`, `/mobavfy` and `/rdmbr`, the account has never been funded (`SUPPLIER_CALLS_REQUIRE_FUNDING`, on by default).",
    retryable: true,
    action: "Retry once the account meets the rule (for example after funding the wallet in the bot).",
  },
  ACCOUNT_BANNED: {
    status: 403,
    error: "This account is banned",
    when: "The account is banned.",
    retryable: false,
    action: "Contact support.",
  },
  ACCOUNT_RESTRICTED: {
    status: 403,
    error: "This account is temporarily restricted",
    when: "The account is restricted for a while; the body's `restrictedUntil` says until when.",
    retryable: true,
    action: "Retry after `restrictedUntil`.",
  },
  IP_ALLOWLIST_REQUIRED: {
    status: 403,
    error: "This key requires an IP allowlist and its list is empty: add an address in the bot",
    when: "The key requires an IP allowlist and its list is empty (`GET /my-ip` still answers).",
    retryable: false,
    action: "Add your address (see `GET /my-ip`) with the bot's /ip add, then retry.",
  },
  IP_NOT_ALLOWED: {
    status: 403,
    error: "Your IP address is not on this key's allowlist",
    when: "The caller's address is not on the key's allowlist (`GET /my-ip` still answers).",
    retryable: false,
    action: "Call from an allowed address, or add this one (see `GET /my-ip`) with the bot's /ip add.",
  },

  // Requests and orders.
  INVALID_BODY: {
    status: 400,
    error: "INVALID BODY",
    when: "The body fails its schema: a wrong type, an out-of-range value, a missing field other than `pid`/`trxid`, order `metadata` beyond its limits (more than 20 keys, a key over 40 characters, a value over 500 characters or not a string), or not a JSON object. `details` lists `{ field, message }`.",
    retryable: false,
    action: "Fix the fields named in `details`.",
  },
  INVALID_REQUEST: {
    status: 400,
    error: "INVALID REQUEST",
    when: "`pid` or `trxid` missing (absent, `null` or empty), an identifier the line requires missing or not allowed (`userId`, `zoneId`, `serverId`), or a query parameter out of range. `details` says which.",
    retryable: false,
    action: "Send the fields the line requires (`required` and `serverIdOptions` in `GET /services`).",
  },
  UNKNOWN_PID: {
    status: 400,
    error: "UNKNOWN PID",
    when: "`pid` matches no catalog id.",
    retryable: false,
    action: "Use an `id` from `GET /products`.",
  },
  PRODUCT_NOT_FOUND: {
    status: 404,
    error: "PRODUCT NOT FOUND",
    when: "`GET /products/{id}`: no pack ever had this catalog id (a switched-off pack is still found, with `orderable: false`).",
    retryable: false,
    action: "Use an `id` from `GET /products`.",
  },
  GAME_DISABLED: {
    status: 400,
    error: "GAME DISABLED",
    when: "The pack's game line exists but does not take orders now.",
    retryable: true,
    action: "Retry later; `GET /services` shows the line's `status`.",
  },
  INVALID_PRODUCT: {
    status: 400,
    error: "INVALID PRODUCT",
    when: "The pack exists but cannot be fulfilled (misconfigured): a top-up pack without a supplier SKU, or, for a live key, a top-up pack no real supplier carries (the sandbox never serves live orders in production; `orderable` is false in `GET /products`). Nothing is charged or stored: the trxid stays free.",
    retryable: false,
    action: "Choose another pack (`orderable` in `GET /products`) or contact support; the same trxid may be reused.",
  },
  PRODUCT_DISABLED: {
    status: 400,
    error: "PRODUCT DISABLED",
    when: "The pack is inactive for orders.",
    retryable: true,
    action: "Choose another pack, or retry when it is listed in `GET /products` again.",
  },
  QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD: {
    status: 400,
    error: "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD",
    when: "`quantity` sent for a top-up line.",
    retryable: false,
    action: "Leave out `quantity` for top-up packs.",
  },
  INSUFFICIENT_STOCK: {
    status: 400,
    error: "INSUFFICIENT STOCK",
    when: "Fewer game-key or gift-card codes in stock than `quantity`, whatever the balance (stock is checked before the wallet); nothing is charged or stored.",
    retryable: true,
    action:
      "Order a smaller quantity (see `stock` and `orderable` in `GET /products`) or retry after a restock; the same trxid may be reused.",
  },
  PRICE_ABOVE_MAX: {
    status: 409,
    error: "PRICE ABOVE MAX",
    when: "The order would cost more than its `maxPrice`: the price changed (list price, price tier or price list). The answer carries the current `priceUsd` (per unit) and `amountUsd` (the order's total); nothing is charged or stored.",
    retryable: false,
    action:
      "Decide on the price in the answer: send the order again with a `maxPrice` you accept (the same trxid may be reused), or not at all.",
  },
  KEY_SPENDING_LIMIT: {
    status: 403,
    error: "KEY SPENDING LIMIT",
    when: "The order would take what this key's orders charged today (UTC) past the key's daily limit (set in the bot with /keylimit). The answer carries `limitUsd`, `spentTodayUsd` and `resetsAt`; nothing is charged or stored.",
    retryable: true,
    action:
      "Wait until `resetsAt`, or ask the account holder to raise the limit (/keylimit); the same trxid may be reused.",
  },
  INVALID_JSON: {
    status: 401,
    error: "INVALID JSON",
    when: "The body is not valid JSON (401, as the contract says).",
    retryable: false,
    action: "Send a well-formed JSON object.",
  },
  FORBIDDEN: {
    status: 403,
    error: "FORBIDDEN",
    when: "The `trxid` (idempotency key) already belongs to an order, or a `/rdmbr` redemption, made with another key of your account.",
    retryable: false,
    action: "Use a new `trxid`, or read that order with the key that placed it.",
  },
  ORDER_NOT_FOUND: {
    status: 404,
    error: "ORDER NOT FOUND",
    when: "No order of your account matches the reference (another account's order is not found either).",
    retryable: false,
    action: "Check the reference: the public id from the invoice, your trxid, or your idempotency key.",
  },
  IDEMPOTENCY_MISMATCH: {
    status: 409,
    error: "TRXID REUSED WITH DIFFERENT REQUEST",
    when: "The `trxid` (idempotency key) already has an order with a different pid, identifiers, quantity or `metadata`, or a `/rdmbr` redemption with another player or code.",
    retryable: false,
    action: "Resend the original body to get that order, or use a new `trxid` for a new purchase.",
  },
  ORDER_WITH_SUPPLIER: {
    status: 409,
    error: "ORDER WITH SUPPLIER",
    when: "`POST /orders/{orderId}/cancel`: the top-up has been sent to a supplier, so its outcome is the supplier's; nothing was changed. The body's `status` is the order's.",
    retryable: false,
    action:
      "Wait for the order to finish (`GET /orders/{orderId}?wait=30`); a failed top-up is cancelled and refunded by itself.",
  },
  ORDER_FINISHED: {
    status: 409,
    error: "ORDER FINISHED",
    when: "`POST /orders/{orderId}/cancel`: the order is already completed or cancelled (a second cancel of the same order lands here); nothing was changed. The body's `status` is the order's.",
    retryable: false,
    action:
      "Read the order (`GET /orders/{orderId}`); for a completed order, ask for a refund with `POST /orders/{orderId}/refund-request` where its line allows one.",
  },
  REFUND_NOT_AVAILABLE: {
    status: 409,
    error: "REFUND NOT AVAILABLE",
    when: "`POST /orders/{orderId}/refund-request`: the order is not completed (cancel it instead while it can be), or its line takes no refund requests.",
    retryable: false,
    action: "Only completed orders of lines with a refund window can be refunded; contact support otherwise.",
  },
  REFUND_WINDOW_CLOSED: {
    status: 409,
    error: "REFUND WINDOW CLOSED",
    when: "`POST /orders/{orderId}/refund-request`: the line's refund window after completion has passed. The body's `closedAt` says when it closed.",
    retryable: false,
    action: "Contact support; the API takes no request after the window.",
  },
  REFUND_ALREADY_REQUESTED: {
    status: 409,
    error: "REFUND ALREADY REQUESTED",
    when: "`POST /orders/{orderId}/refund-request`: the order already has a refund request (one per order); nothing was changed.",
    retryable: false,
    action: "Follow the request on the invoice's `refundRequest` (`GET /orders/{orderId}`) or its webhook events.",
  },
  DUPLICATE_IN_FLIGHT: {
    status: 429,
    error: "DUPLICATE_IN_FLIGHT",
    when: "The same `trxid` (idempotency key) is being placed, or redeemed at `/rdmbr`, by a request that has not answered yet.",
    retryable: true,
    action: "Retry shortly with the same body: it answers the original's invoice once that finishes.",
  },
  RATE_LIMIT: {
    status: 429,
    error: "TOO MANY REQUESTS",
    when: "More than 10 calls in a rolling second or 80 in a rolling minute for this key, or too many failed authentications from your address.",
    retryable: true,
    action: "Wait `Retry-After` seconds, then retry; pace calls by the `RateLimit` headers.",
    retryAfter: true,
  },
  REPLAY_QUOTA_EXCEEDED: {
    status: 429,
    error: "REPLAY QUOTA EXCEEDED",
    when: "`POST /webhooks/replay`: this account has already queued 10,000 replayed deliveries in the last hour.",
    retryable: true,
    action:
      "Wait `Retry-After` seconds; replay a narrower range or one `endpointId` (events already waiting for an endpoint are not queued again).",
    retryAfter: true,
  },
  ENDPOINT_NOT_FOUND: {
    status: 404,
    error: "ENDPOINT NOT FOUND",
    when: "`POST /webhooks/replay`: `endpointId` names no webhook endpoint of your account.",
    retryable: false,
    action:
      "Use an endpoint id the bot's /webhook list shows, or leave out `endpointId` to replay to every subscribed endpoint.",
  },
  NOT_IMPLEMENTED: {
    status: 501,
    error: "NOT IMPLEMENTED",
    when: "The path exists in the contract but not on this build (`POST /balance`: wallets are funded in the bot).",
    retryable: false,
    action: "Do not call it; fund the wallet through the bot.",
  },
  MAINTENANCE: {
    status: 503,
    error: "MAINTENANCE",
    when: "New orders and redeems are paused for maintenance. A replay of an existing order still answers its invoice.",
    retryable: true,
    action: "Do not send new orders until later; replays (same body, same `trxid`) keep working.",
  },
  API_ORDER_DISABLED: {
    status: 503,
    error: "API_ORDER_DISABLED",
    when: "New orders are off for everyone for a while; reads keep working. A replay of an existing order still answers its invoice.",
    retryable: true,
    action: "Retry new orders later; replays and GET requests keep working.",
  },
  RATE_LIMIT_UNAVAILABLE: {
    status: 503,
    error: "RATE_LIMIT_UNAVAILABLE",
    when: "The rate-limit store did not answer in time; nothing was done.",
    retryable: true,
    action: "Retry after `Retry-After` seconds.",
    retryAfter: true,
  },

  // Verify and redeem.
  PLAYER_NOT_FOUND: {
    status: 404,
    error: "PLAYER NOT FOUND",
    when: "The supplier knows no such player (or no such user in that zone).",
    retryable: false,
    action: "Check the player id (and zone).",
  },
  INVALID_CODE: {
    status: 400,
    error: "INVALID CODE",
    when: "`POST /rdmbr`: the code is not groups of 2-10 letters or digits separated by hyphens, or the supplier says it is not a valid code.",
    retryable: false,
    action: "Check the code with its owner; do not resend it unchanged.",
  },
  CODE_USED: {
    status: 409,
    error: "CODE ALREADY USED",
    when: "`POST /rdmbr`: the code was already redeemed.",
    retryable: false,
    action: "Do not resend; the code cannot be redeemed again.",
  },
  SUPPLIER_UNAVAILABLE: {
    status: 503,
    error: "SUPPLIER UNAVAILABLE: try again shortly",
    when: "The supplier could not answer the check or redemption now.",
    retryable: true,
    action: "Retry after `Retry-After` seconds.",
    retryAfter: true,
  },

  // The Telegram webhook (POST /api/telegram/webhook): only Telegram, with the registered secret.
  TELEGRAM_WEBHOOK_FORBIDDEN: {
    status: 403,
    error: "Telegram webhook secret token missing or wrong",
    when: "A POST to /api/telegram/webhook without `X-Telegram-Bot-Api-Secret-Token`, or with one that differs from TELEGRAM_WEBHOOK_SECRET.",
    retryable: false,
    action:
      "Only Telegram calls this path: register it with `npm run bot:webhook -- <public-url>` using the web process's TELEGRAM_WEBHOOK_SECRET.",
  },

  // HTTP-level failures, in the same shape.
  NOT_FOUND: {
    status: 404,
    error: "NOT FOUND",
    when: "No such path.",
    retryable: false,
    action: "Check the path against `/openapi.json`.",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    error: "METHOD NOT ALLOWED",
    when: "The path exists but not with this method; `Allow` lists the methods.",
    retryable: false,
    action: "Use a method from the `Allow` header.",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    error: "PAYLOAD TOO LARGE",
    when: "The body is larger than the limit (16 KiB by default); the body's `maxBytes` says the limit.",
    retryable: false,
    action: "Send a smaller body.",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    error: "UNSUPPORTED MEDIA TYPE: send Content-Type: application/json",
    when: "A POST body without `Content-Type: application/json`.",
    retryable: false,
    action: "Send `Content-Type: application/json`.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    error: "SERVICE UNAVAILABLE",
    when: "The database did not answer, or (`GET /ledger` statements) the service is already streaming its most statements at once or this key already streams one, or a `next start` server was still starting and could not yet tell the client's address; nothing was done.",
    retryable: true,
    action: "Retry after `Retry-After` seconds (an order retry with the same `trxid` is safe).",
    retryAfter: true,
  },
  INTERNAL_ERROR: {
    status: 500,
    error: "INTERNAL ERROR",
    when: "An unexpected failure on our side.",
    retryable: true,
    action: "Retry with backoff (an order retry with the same `trxid` is safe); report it if it persists.",
  },
} as const satisfies Record<string, ErrorReference>;

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

// Both hosts build every JSON answer here, so both send the same security headers.
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", ...API_SECURITY_HEADERS };

export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
  });
}

export function errorBody(key: ErrorKey, message?: string, extra?: Record<string, unknown>) {
  return {
    success: false as const,
    error: message ?? errorCatalogue[key].error,
    code: key,
    ...extra,
  };
}

// The code each error answer carries, for the request's log line and metrics (observe-request.ts).
const answeredCodes = new WeakMap<Response, ErrorKey>();

export function errorResponse(key: ErrorKey, options: ApiError["options"] = {}): Response {
  const response = jsonResponse(
    errorBody(key, options.message, options.extra),
    errorCatalogue[key].status,
    options.headers,
  );
  answeredCodes.set(response, key);
  return response;
}

/** The catalogue's code of an answer errorResponse built; undefined for any other answer. */
export function errorCodeOf(response: Response): ErrorKey | undefined {
  return answeredCodes.get(response);
}
