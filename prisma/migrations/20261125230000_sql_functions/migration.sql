-- The hot path's shared reads and its money operations as SQL functions: each is one readable unit,
-- one round trip for its caller, and testable in SQL. The TypeScript modules call them with named
-- arguments (lib/<domain>/queries.ts).

-- An order as the API, the worker and the webhooks read it: camelCase fields, cents as bigint.
-- Statements select `(order_record(o)).*`; the function is inlined, so it costs nothing per row.
CREATE TYPE order_record AS (
  "id" integer,
  "publicId" text,
  "accountId" integer,
  "apiKeyId" integer,
  "trxid" text,
  "idempotencyKey" text,
  "requestFingerprint" text,
  "catalogId" text,
  "lineSlug" text,
  "lineKind" "LineKind",
  "packName" text,
  "unitPriceCents" bigint,
  "quantity" integer,
  "amountCents" bigint,
  "userId" text,
  "zoneId" text,
  "serverId" text,
  "sentUserId" text,
  "sentZoneId" text,
  "sentServerId" text,
  "orderCreated" boolean,
  "status" "OrderStatus",
  "error" text,
  "refunded" boolean,
  "needsAdmin" boolean,
  "supplier" text,
  "createdAt" timestamptz,
  "finishedAt" timestamptz
);

CREATE FUNCTION order_record(o orders) RETURNS order_record LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(o.id, o.public_id, o.account_id, o.api_key_id, o.trxid, o.idempotency_key, o.request_fingerprint,
             o.catalog_id, o.line_slug, o.line_kind, o.pack_name, o.unit_price_cents, o.quantity, o.amount_cents,
             o.user_id, o.zone_id, o.server_id, o.sent_user_id, o.sent_zone_id, o.sent_server_id,
             o.order_created, o.status, o.error, o.refunded, o.needs_admin, o.supplier, o.created_at,
             o.finished_at)::order_record
$$;

-- The caller of an API request, by its key's hash: the key, its allowlist and its account's state.
-- No row for an unknown or revoked key. Inlined into the statement that selects from it.
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
  "totalCreditedCents" bigint
) LANGUAGE sql STABLE AS $$
  SELECT k.id, k.account_id, k.require_ip_allowlist, k.created_at,
         COALESCE((SELECT array_agg(e.cidr) FROM ip_allow_entries e WHERE e.api_key_id = k.id), '{}'),
         a.api_enabled, a.api_disabled_by_admin, a.banned_at, a.restricted_until, a.created_at,
         a.total_credited_cents
    FROM api_keys k JOIN accounts a ON a.id = k.account_id
   WHERE k.key_hash = api_caller.key_hash AND k.revoked_at IS NULL
$$;

-- The pack a placement buys, with its line (lib/orders/validate-order-request.ts reads it).
CREATE FUNCTION catalog_entry(catalog_id text)
RETURNS TABLE (
  "productId" integer,
  "catalogId" text,
  "packName" text,
  "priceCents" bigint,
  "productActive" boolean,
  "supplierSku" text,
  "lineSlug" text,
  "lineCode" text,
  "lineKind" "LineKind",
  "requiredFields" jsonb,
  "serverIdOptions" jsonb,
  "lineAvailable" boolean,
  "lineOrderable" boolean,
  "supplier" text
) LANGUAGE sql STABLE AS $$
  SELECT p.id, p.catalog_id, p.pack_name, p.price_cents, p.active, p.supplier_sku,
         l.slug, l.code, l.kind, l.required_fields, l.server_id_options, l.available, l.orderable, l.supplier
    FROM products p JOIN game_lines l ON l.id = p.line_id
   WHERE p.catalog_id = catalog_entry.catalog_id
$$;

-- One webhook delivery as the dispatcher sends it: the delivery, its event (fields prefixed `event`)
-- and its endpoint (lib/webhooks/webhook-record.ts).
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
  "disabledAt" timestamptz
) LANGUAGE sql STABLE AS $$
  SELECT d.id, d.status, d.attempts, d.endpoint_id, ev.public_id, ev.type, ev.data, ev.created_at,
         e.account_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.disabled_at
    FROM webhook_deliveries d
    JOIN webhook_events ev ON ev.id = d.event_id
    JOIN webhook_endpoints e ON e.id = d.endpoint_id
   WHERE d.id = webhook_delivery.delivery_id
$$;

-- The outbox write: the event, numbered from the account's event_sequences row, and one delivery
-- per subscribed endpoint (or to `endpoint_id` only, when given), in the caller's transaction.
-- The sequence row's lock makes a second transaction of the account wait for the first to commit,
-- so numbers commit in order and without gaps; it is not the accounts row, so it does not queue
-- behind wallet debits. The worker's dispatcher claims the delivery rows.
CREATE FUNCTION record_webhook_event(account_id integer, public_id text, type text, data json, endpoint_id integer)
RETURNS TABLE ("sequence" integer, "deliveries" integer) LANGUAGE plpgsql AS $$
DECLARE
  v_sequence bigint;
  v_event_id bigint;
  v_deliveries integer;
BEGIN
  INSERT INTO event_sequences AS s (account_id, last_sequence) VALUES (record_webhook_event.account_id, 1)
  ON CONFLICT ON CONSTRAINT event_sequences_pkey DO UPDATE SET last_sequence = s.last_sequence + 1
  RETURNING s.last_sequence INTO v_sequence;

  INSERT INTO webhook_events (public_id, account_id, sequence, type, data)
  VALUES (record_webhook_event.public_id, record_webhook_event.account_id, v_sequence, record_webhook_event.type,
          record_webhook_event.data)
  RETURNING id INTO v_event_id;

  INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
  SELECT v_event_id, e.id, now() FROM webhook_endpoints e
   WHERE e.account_id = record_webhook_event.account_id AND e.disabled_at IS NULL
     AND (record_webhook_event.endpoint_id IS NULL OR e.id = record_webhook_event.endpoint_id)
     AND (record_webhook_event.endpoint_id IS NOT NULL OR cardinality(e.event_types) = 0
          OR record_webhook_event.type = ANY (e.event_types));
  GET DIAGNOSTICS v_deliveries = ROW_COUNT;

  RETURN QUERY SELECT v_sequence::integer, v_deliveries;
END;
$$;

-- The only change of a wallet balance: one conditional UPDATE (never below zero) and its ledger row,
-- in the caller's transaction, so the balance always equals the sum of the ledger. No row when the
-- balance would go below zero, and then nothing is written.
--
-- The move takes the account's next ledger number (account_seq, 1..n without gaps: the account's
-- row stays locked to the end of the transaction) and dates the entry no earlier than the
-- account's previous one (ledger_last_at), so the balance at a time is the balance_after of the last
-- entry dated before it (GET /ledger?format=csv). A move that takes the balance from at or above the
-- holder's threshold to below it records balance.low (`low_event_id` is its public id).
CREATE FUNCTION post_ledger_entry(
  account_id integer,
  kind "LedgerKind",
  amount_cents bigint,
  order_id integer,
  actor text,
  reason text,
  audit_log_id integer,
  low_event_id text
) RETURNS TABLE ("entryId" integer, "balanceAfterCents" bigint, "deliveries" integer) LANGUAGE plpgsql AS $$
DECLARE
  v_balance bigint;
  v_threshold bigint;
  v_seq integer;
  v_at timestamptz;
  v_entry_id integer;
  v_deliveries integer := 0;
BEGIN
  UPDATE accounts a
     SET balance_cents = a.balance_cents + post_ledger_entry.amount_cents,
         total_credited_cents = a.total_credited_cents
           + CASE WHEN post_ledger_entry.kind = 'credit' THEN post_ledger_entry.amount_cents ELSE 0 END,
         ledger_count = a.ledger_count + 1,
         ledger_last_at = greatest(now(), a.ledger_last_at),
         updated_at = now()
   WHERE a.id = post_ledger_entry.account_id AND a.balance_cents + post_ledger_entry.amount_cents >= 0
  RETURNING a.balance_cents, a.low_balance_threshold_cents, a.ledger_count, a.ledger_last_at
       INTO v_balance, v_threshold, v_seq, v_at;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  INSERT INTO ledger_entries (account_id, kind, amount_cents, balance_after_cents, order_id, actor, reason,
                              audit_log_id, account_seq, created_at)
  VALUES (post_ledger_entry.account_id, post_ledger_entry.kind, post_ledger_entry.amount_cents, v_balance,
          post_ledger_entry.order_id, post_ledger_entry.actor, post_ledger_entry.reason,
          post_ledger_entry.audit_log_id, v_seq, v_at)
  RETURNING id INTO v_entry_id;

  -- Once per crossing, not on every debit while the balance stays below. The dollars are
  -- cents / 100 as a double, as centsToUsd gives them.
  IF v_threshold IS NOT NULL AND v_balance - post_ledger_entry.amount_cents >= v_threshold
     AND v_balance < v_threshold THEN
    SELECT r.deliveries INTO v_deliveries
      FROM record_webhook_event(post_ledger_entry.account_id, low_event_id, 'balance.low',
                                json_build_object('balanceUsd', v_balance::float8 / 100, 'currency', 'USD',
                                                  'thresholdUsd', v_threshold::float8 / 100),
                                NULL) r;
  END IF;

  RETURN QUERY SELECT v_entry_id, v_balance, v_deliveries;
END;
$$;

-- POST /orders' write, one transaction of its own (its caller sends it alone, no BEGIN/COMMIT).
-- Nothing is written when any step fails.
--
-- The gate, before anything is written: the idempotency key's in-flight lock (held to commit;
-- another placement with the key holds it: outcome 'in_flight'), then no order with the key (one
-- committed after the caller's lookup: outcome 'placed_meanwhile', and the caller answers it as a
-- replay; one committing later fails the order's insert with 23505, handled the same way).
--
-- Locks in this order: the account's row key-share (the lock the order's foreign key takes
-- anyway), the key's row, the account's row for the debit, then the codes. The bot's account
-- commands lock the account and then may update a key (lib/accounts/manage-ip-allowlist.ts), so
-- taking the key first would let the two deadlock.
--
-- The order takes the key's next number (key_seq) under the key's row lock, so the numbers are
-- 1..n without gaps (a failed placement rolls its number back) and GET /history reads an exact
-- total from the key's row.
--
-- Not charged (the balance would go below zero): the order is stored cancelled with INSUFFICIENT
-- BALANCE, with its event, and nothing else, so a replay answers the same invoice. Charged: `codes` codes are reserved
-- (0 for a top-up; FOR UPDATE SKIP LOCKED, so no code is handed out twice), and when fewer are free
-- the function fails with INSUFFICIENT_STOCK, which undoes the charge. The fulfilment job is added
-- with a key no other job can hold (`place:<order id>`) through add_job's unsafe_dedupe path: one
-- INSERT on graphile-worker's key index, whatever the queue's length. Should the key be held all the
-- same (a job left by a restored or reset database), add_job returns that job with its revision
-- bumped, and the placement fails with FULFILMENT_JOB_TAKEN: no order is ever stored without its job.
CREATE FUNCTION place_order(
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
  v_reserved integer;
  v_placed order_record;
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

  PERFORM 1 FROM accounts a WHERE a.id = place_order.account_id FOR KEY SHARE;
  UPDATE api_keys k SET order_count = k.order_count + 1
   WHERE k.id = place_order.api_key_id AND k.account_id = place_order.account_id
  RETURNING k.order_count INTO v_key_seq;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api key % of account % not found while placing an order', api_key_id, account_id;
  END IF;

  -- Stored as charged first: the ledger entry refers to the order. Refused for balance, it is
  -- then cancelled within the same transaction.
  INSERT INTO orders AS o (id, public_id, account_id, api_key_id, trxid, idempotency_key, request_fingerprint,
                           product_id, catalog_id, line_slug, line_kind, pack_name, unit_price_cents, quantity,
                           amount_cents, user_id, zone_id, server_id, sent_user_id, sent_zone_id, sent_server_id,
                           status, supplier, key_seq, order_created)
  VALUES (place_order.order_id, place_order.public_id, place_order.account_id, place_order.api_key_id,
          place_order.trxid, place_order.idempotency_key, place_order.request_fingerprint, place_order.product_id,
          place_order.catalog_id, place_order.line_slug, place_order.line_kind, place_order.pack_name,
          place_order.unit_price_cents, place_order.quantity, v_amount, place_order.user_id, place_order.zone_id,
          place_order.server_id, place_order.sent_user_id, place_order.sent_zone_id, place_order.sent_server_id,
          'processing', place_order.supplier, v_key_seq, true)
  RETURNING (order_record(o)).* INTO v_placed;

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
     WHERE c.id IN (SELECT f.id FROM inventory_codes f
                     WHERE f.product_id = place_order.product_id AND f.status = 'available'
                     ORDER BY f.id LIMIT codes FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS v_reserved = ROW_COUNT;
    IF v_reserved <> codes THEN
      PERFORM raise_api_error('INSUFFICIENT_STOCK');
    END IF;
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
