-- One webhook delivery as the dispatcher sends it: the delivery, its event (fields prefixed `event`),
-- its endpoint (lib/webhooks/webhook-record.ts) and the mode of the endpoint's account.
CREATE OR REPLACE FUNCTION webhook_delivery(delivery_id bigint)
RETURNS TABLE (
  "id" bigint,
  "status" "WebhookDeliveryStatus",
  "attempts" integer,
  "endpointId" integer,
  "eventPublicId" text,
  "eventType" text,
  "eventData" json,
  "eventCreatedAt" timestamptz,
  "accountId" integer,
  "url" text,
  "secret" text,
  "previousSecret" text,
  "previousSecretExpiresAt" timestamptz,
  "disabledAt" timestamptz,
  "livemode" boolean
) LANGUAGE sql STABLE AS $$
  SELECT d.id, d.status, d.attempts, d.endpoint_id, ev.public_id, ev.type, ev.data, ev.created_at,
         e.account_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.disabled_at,
         a.live_account_id IS NULL
    FROM webhook_deliveries d
    JOIN webhook_events ev ON ev.id = d.event_id
    JOIN webhook_endpoints e ON e.id = d.endpoint_id
    JOIN accounts a ON a.id = e.account_id
   WHERE d.id = webhook_delivery.delivery_id
$$;
