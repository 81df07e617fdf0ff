// The Top-up API's TypeScript client. Start with createClient (README: Quickstart).
export { createClient } from "./client.js";
export type {
  Balance,
  ClientOptions,
  HistoryPage,
  Invoice,
  LedgerEntry,
  LedgerPage,
  OrderRequest,
  PlacedOrder,
  Product,
  Redemption,
  Service,
  TopupClient,
  Verification,
  WebhookEventRecord,
} from "./client.js";
export {
  CLIENT_ERROR_CODES,
  isTopupApiError,
  TopupApiError,
  type ClientErrorCode,
  type FieldProblem,
  type TopupErrorCode,
} from "./errors.js";
export { ERROR_CODES, type ErrorCode } from "./generated/error-codes.js";
export type { CallOptions } from "./operation-types.js";
export type { RetryOptions } from "./retry.js";
export { verifyWebhook, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
export type { components, paths, webhooks } from "./generated/openapi.js";
