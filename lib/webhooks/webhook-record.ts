// Webhook rows as the hot path's raw SQL reads them (the dispatcher's claim, GET /events): Prisma's
// WebhookDelivery, WebhookEvent and WebhookEndpoint, the fields those paths use, with BIGINT ids and
// sequence numbers as numbers. Each statement selects through the column lists below and gets these
// shapes back from pg as they are.
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import { selectList, type ColumnMap } from "../db/select-list";

/** An event as GET /events reads it, from `webhook_events`. */
export type WebhookEventRecord = BigintsAsNumbers<
  Pick<WebhookEvent, "publicId" | "sequence" | "type" | "data" | "createdAt">
>;

const WEBHOOK_EVENT_COLUMN_MAP: ColumnMap<WebhookEventRecord> = {
  publicId: "public_id",
  sequence: "sequence",
  type: "type",
  data: "data",
  createdAt: "created_at",
};

export const WEBHOOK_EVENT_RECORD_COLUMNS = selectList(WEBHOOK_EVENT_COLUMN_MAP);

/**
 * One delivery as the dispatcher claims it: the delivery, its event (fields prefixed `event`) and its
 * endpoint, from WEBHOOK_DELIVERY_TABLES.
 */
export type WebhookDeliveryRecord = BigintsAsNumbers<
  Pick<WebhookDelivery, "id" | "status" | "attempts" | "endpointId">
> & {
  eventPublicId: WebhookEventRecord["publicId"];
  eventType: WebhookEventRecord["type"];
  eventData: WebhookEventRecord["data"];
  eventCreatedAt: WebhookEventRecord["createdAt"];
} & Pick<WebhookEndpoint, "accountId" | "url" | "secret" | "previousSecret" | "previousSecretExpiresAt" | "disabledAt">;

const WEBHOOK_DELIVERY_COLUMN_MAP: ColumnMap<WebhookDeliveryRecord> = {
  id: "d.id",
  status: "d.status",
  attempts: "d.attempts",
  endpointId: "d.endpoint_id",
  eventPublicId: `ev.${WEBHOOK_EVENT_COLUMN_MAP.publicId}`,
  eventType: `ev.${WEBHOOK_EVENT_COLUMN_MAP.type}`,
  eventData: `ev.${WEBHOOK_EVENT_COLUMN_MAP.data}`,
  eventCreatedAt: `ev.${WEBHOOK_EVENT_COLUMN_MAP.createdAt}`,
  accountId: "e.account_id",
  url: "e.url",
  secret: "e.secret",
  previousSecret: "e.previous_secret",
  previousSecretExpiresAt: "e.previous_secret_expires_at",
  disabledAt: "e.disabled_at",
};

export const WEBHOOK_DELIVERY_RECORD_COLUMNS = selectList(WEBHOOK_DELIVERY_COLUMN_MAP);
export const WEBHOOK_DELIVERY_TABLES =
  "webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id";
