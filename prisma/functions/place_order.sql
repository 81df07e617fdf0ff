-- POST /orders' write (lib/orders/sql/place-order.ts says what it does). The account decides its
-- mode, and with it the order's supplier and its use of stock: nothing of that is taken from the caller.
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
  v_stock integer;
  v_supplier text;
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
  -- Test mode, decided by the account: a test top-up goes to the sandbox, and a test key or gift
  -- card takes no code from stock (its invoice shows generated test codes).
  v_stock := CASE WHEN v_livemode AND place_order.line_kind <> 'topup' THEN place_order.quantity ELSE 0 END;
  v_supplier := CASE WHEN NOT v_livemode AND place_order.line_kind = 'topup' THEN 'sandbox' END;
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
          'processing', v_supplier, v_key_seq, true, v_livemode)
  RETURNING (order_record(o)).* INTO v_placed;

  IF v_stock > 0 THEN
    SELECT array_agg(f.id) INTO v_codes
      FROM (SELECT c.id FROM inventory_codes c
             WHERE c.product_id = place_order.product_id AND c.status = 'available'
             ORDER BY c.id LIMIT v_stock FOR UPDATE SKIP LOCKED) f;
    IF coalesce(cardinality(v_codes), 0) <> v_stock THEN
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

  IF v_charged AND v_stock > 0 THEN
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
