// Webhook signature checks on top of the `standardwebhooks` package (the scheme the service signs
// with: docs/webhooks.md). Verify the raw body, exactly as received, before parsing it.
import { Webhook } from "standardwebhooks";
import { TopupApiError } from "./errors.js";
import type { webhooks } from "./generated/openapi.js";

/** Every event the service delivers, discriminated by `type` (from the OpenAPI document's `webhooks`). */
export type WebhookEvent = {
  [Type in keyof webhooks]: webhooks[Type]["post"] extends {
    requestBody: { content: { "application/json": infer Body } };
  }
    ? Body
    : never;
}[keyof webhooks];

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (record[name] = value));
    return record;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) record[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return record;
}

/**
 * The event, once its `webhook-signature` (any of the signatures, so a rotated secret still
 * verifies for its day of overlap) and `webhook-timestamp` (within 5 minutes) check out with your
 * endpoint's `whsec_` secret. Throws TopupApiError WEBHOOK_VERIFICATION_FAILED otherwise. Deliveries
 * are at least once: dedupe on the `webhook-id` header.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const payload = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  try {
    return new Webhook(secret).verify(payload, headerRecord(headers)) as WebhookEvent;
  } catch (error) {
    throw new TopupApiError({
      code: "WEBHOOK_VERIFICATION_FAILED",
      message: `webhook did not verify: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
}
