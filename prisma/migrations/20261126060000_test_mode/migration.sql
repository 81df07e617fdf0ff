-- Test mode. An account's test wallet is an account of its own (live_account_id names the holder's
-- live account), so its orders, ledger, events, trxids and webhook endpoints are apart from the live
-- ones by the same account scoping every statement already has. A test key belongs to the holder
-- (api_keys.livemode false) and acts on the test account: api_caller answers that account's id.
ALTER TABLE "accounts" ADD COLUMN "live_account_id" INTEGER;
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_live_account_id_fkey"
  FOREIGN KEY ("live_account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE UNIQUE INDEX "accounts_live_account_id_key" ON "accounts"("live_account_id");

ALTER TABLE "api_keys" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;

-- Set by place_order from the account, so the dashboard can leave test orders out of its figures.
ALTER TABLE "orders" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
DROP INDEX "orders_created_at_covering_idx";
CREATE INDEX "orders_created_at_covering_idx" ON "orders"("created_at", "status", "order_created", "amount_cents", "finished_at", "livemode");

ALTER TYPE order_record ADD ATTRIBUTE "livemode" boolean;

CREATE OR REPLACE FUNCTION order_record(o orders) RETURNS order_record LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(o.id, o.public_id, o.account_id, o.api_key_id, o.trxid, o.idempotency_key, o.request_fingerprint,
             o.catalog_id, o.line_slug, o.line_kind, o.pack_name, o.unit_price_cents, o.quantity, o.amount_cents,
             o.user_id, o.zone_id, o.server_id, o.sent_user_id, o.sent_zone_id, o.sent_server_id,
             o.order_created, o.status, o.error, o.refunded, o.needs_admin, o.supplier, o.created_at,
             o.finished_at, o.livemode)::order_record
$$;

-- The caller of an API request, by its key's hash. The state (ban, restriction, API switches, age)
-- is the holder's; the account acted on, its credits and the mode are the test account's for a
-- test key. A test key is issued with its test account, in one transaction (issueApiKey).
DROP FUNCTION api_caller(text);
CREATE FUNCTION api_caller(key_hash text)
RETURNS TABLE (
  "keyId" integer,
  "accountId" integer,
  "requireIpAllowlist" boolean,
  "keyCreatedAt" timestamptz,
  "cidrs" text[],
  "apiEnabled" boolean,
  "apiDisabledByAdmin" boolean,
  "bannedAt" timestamptz,
  "restrictedUntil" timestamptz,
  "accountCreatedAt" timestamptz,
  "totalCreditedCents" bigint,
  "livemode" boolean
) LANGUAGE sql STABLE AS $$
  SELECT k.id, CASE WHEN k.livemode THEN a.id ELSE t.id END, k.require_ip_allowlist, k.created_at,
         COALESCE((SELECT array_agg(e.cidr) FROM ip_allow_entries e WHERE e.api_key_id = k.id), '{}'),
         a.api_enabled, a.api_disabled_by_admin, a.banned_at, a.restricted_until, a.created_at,
         CASE WHEN k.livemode THEN a.total_credited_cents ELSE t.total_credited_cents END, k.livemode
    FROM api_keys k
    JOIN accounts a ON a.id = k.account_id
    LEFT JOIN accounts t ON NOT k.livemode AND t.live_account_id = a.id
   WHERE k.key_hash = api_caller.key_hash AND k.revoked_at IS NULL
$$;

-- One webhook delivery as the dispatcher sends it, with the mode of the endpoint's account.
DROP FUNCTION webhook_delivery(bigint);
CREATE FUNCTION webhook_delivery(delivery_id bigint)
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

-- POST /orders' write (lib/orders/sql/place-order.ts says what it does); the order takes its mode
-- from its account, and the key is checked against the holder's account.
CREATE OR REPLACE FUNCTION place_order(
  order_id integer,
  public_id text,
  account_id integer,
  api_key_id integer,
  trxid text,
  idempotency_key text,
  request_fingerprint text,
  product_id integer,
  catalog_id text,
  line_slug text,
  line_kind "LineKind",
  pack_name text,
  unit_price_cents bigint,
  quantity integer,
  user_id text,
  zone_id text,
  server_id text,
  sent_user_id text,
  sent_zone_id text,
  sent_server_id text,
  supplier text,
  codes integer,
  low_event_id text
) RETURNS TABLE ("outcome" text, "deliveries" integer, "placed" order_record) LANGUAGE plpgsql AS $$
DECLARE
  v_amount bigint := place_order.unit_price_cents * place_order.quantity;
  v_key_seq integer;
  v_charged boolean;
  v_deliveries integer := 0;
  v_codes integer[];
  v_placed order_record;
  v_livemode boolean;
  v_holder integer;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(place_order.account_id || ':' || place_order.idempotency_key, 0)) THEN
    RETURN QUERY SELECT 'in_flight', 0, NULL::order_record;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM orders o
              WHERE o.account_id = place_order.account_id AND o.idempotency_key = place_order.idempotency_key) THEN
    RETURN QUERY SELECT 'placed_meanwhile', 0, NULL::order_record;
    RETURN;
  END IF;

  SELECT a.live_account_id IS NULL, coalesce(a.live_account_id, a.id) INTO v_livemode, v_holder
    FROM accounts a WHERE a.id = place_order.account_id FOR KEY SHARE;
  UPDATE api_keys k SET order_count = k.order_count + 1
   WHERE k.id = place_order.api_key_id AND k.account_id = v_holder
  RETURNING k.order_count INTO v_key_seq;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api key % of account % not found while placing an order', api_key_id, account_id;
  END IF;

  -- Stored as charged first: the ledger entry refers to the order. Refused for balance, it is
  -- then cancelled within the same transaction.
  INSERT INTO orders AS o (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint,
                           product_id, catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity,
                           amount_cents, user_id, zone_id, server_id, sent_user_id, sent_zone_id, sent_server_id,
                           status, supplier, key_seq, order_created, livemode)
  VALUES (place_order.order_id, place_order.public_id, place_order.account_id, place_order.api_key_id,
          place_order.trxid, place_order.idempotency_key, place_order.request_fingerprint, place_order.product_id,
          place_order.catalog_id, place_order.line_slug, place_order.line_kind, place_order.pack_name,
          place_order.unit_price_cents, place_order.quantity, v_amount, place_order.user_id, place_order.zone_id,
          place_order.server_id, place_order.sent_user_id, place_order.sent_zone_id, place_order.sent_server_id,
          'processing', place_order.supplier, v_key_seq, true, v_livemode)
  RETURNING (order_record(o)).* INTO v_placed;

  IF codes > 0 THEN
    SELECT array_agg(f.id) INTO v_codes
      FROM (SELECT c.id FROM inventory_codes c
             WHERE c.product_id = place_order.product_id AND c.status = 'available'
             ORDER BY c.id LIMIT codes FOR UPDATE SKIP LOCKED) f;
    IF coalesce(cardinality(v_codes), 0) <> codes THEN
      PERFORM raise_api_error('INSUFFICIENT_STOCK');
    END IF;
  END IF;

  SELECT true, m.deliveries INTO v_charged, v_deliveries
    FROM post_ledger_entry(place_order.account_id, 'debit', -v_amount, place_order.order_id,
                           'api-key:' || place_order.api_key_id, 'order ' || place_order.public_id, NULL,
                           low_event_id) m;
  v_charged := coalesce(v_charged, false);
  v_deliveries := coalesce(v_deliveries, 0);

  IF NOT v_charged THEN
    UPDATE orders o SET status = 'cancelled', order_created = false, error = 'INSUFFICIENT BALANCE', finished_at = now()
     WHERE o.id = place_order.order_id
    RETURNING (order_record(o)).* INTO v_placed;
  END IF;

  IF v_charged AND codes > 0 THEN
    UPDATE inventory_codes c SET status = 'reserved', order_id = place_order.order_id, reserved_at = now()
     WHERE c.id = ANY (v_codes);
  END IF;

  INSERT INTO order_events (order_id, from_status, to_status, reason)
  VALUES (place_order.order_id, NULL, v_placed.status,
          CASE WHEN v_charged THEN 'placed: wallet debited, queued for fulfilment'
               ELSE 'INSUFFICIENT BALANCE: nothing charged' END);

  IF v_charged AND (graphile_worker.add_job('fulfil_order', json_build_object('orderId', place_order.order_id),
                                            max_attempts := 25, job_key := 'place:' || place_order.order_id,
                                            job_key_mode := 'unsafe_dedupe')).revision <> 0 THEN
    PERFORM raise_api_error('FULFILMENT_JOB_TAKEN');
  END IF;

  RETURN QUERY SELECT 'placed', v_deliveries, v_placed;
END;
$$;
