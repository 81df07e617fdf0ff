// The event types a webhook endpoint can subscribe to (docs/webhooks.md). `endpoint.test` is sent
// only on request, to the one endpoint being tested, whatever it subscribed to.
export const WEBHOOK_EVENT_TYPES = [
  "order.completed",
  "order.cancelled",
  "order.pending",
  "order.flagged",
  "order.refund_requested",
  "order.refunded",
  "order.refund_declined",
  "wallet.credited",
  "wallet.debited",
  "balance.low",
  "product.updated",
  "endpoint.test",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export const MAX_ENDPOINTS_PER_ACCOUNT = 5;

/** The task that tells a holder in the bot that an endpoint was disabled. */
export const NOTIFY_ENDPOINT_DISABLED_TASK = "notify_webhook_endpoint_disabled";
