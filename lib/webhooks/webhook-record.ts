// Webhook rows as the hot path's raw SQL reads them (the dispatcher's claim, GET /events): Prisma's
// WebhookDelivery, WebhookEvent and WebhookEndpoint, the fields those paths use, with BIGINT ids and
// sequence numbers as numbers.
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";

/** An event as GET /events reads it, from `webhook_events`. */
export type WebhookEventRecord = BigintsAsNumbers<
  Pick<WebhookEvent, "publicId" | "sequence" | "type" | "data" | "createdAt">
>;

/**
 * One delivery as the dispatcher claims it: the delivery, its event (fields prefixed `event`) and its
 * endpoint (prisma/functions/webhook_delivery.sql).
 */
export type WebhookDeliveryRecord = BigintsAsNumbers<
  Pick<WebhookDelivery, "id" | "status" | "attempts" | "endpointId">
> & {
  eventPublicId: WebhookEventRecord["publicId"];
  eventType: WebhookEventRecord["type"];
  eventData: WebhookEventRecord["data"];
  eventCreatedAt: WebhookEventRecord["createdAt"];
} & Pick<
    WebhookEndpoint,
    "accountId" | "url" | "secret" | "previousSecret" | "previousSecretExpiresAt" | "disabledAt"
  > & {
    /** False when the endpoint is a test endpoint (its account is a test account). */
    livemode: boolean;
  };
