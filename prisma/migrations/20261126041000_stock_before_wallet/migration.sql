-- Stock is checked before the wallet: an order for more codes than are free fails with
-- INSUFFICIENT_STOCK whatever the balance, and since that failure writes nothing its trxid stays
-- free. Only a pack stock can cover is refused for balance (a stored cancelled order, trxid used).

-- POST /orders' write, one transaction of its own (its caller sends it alone, no BEGIN/COMMIT).
-- Nothing is written when any step fails.
--
-- The gate, before anything is written: the idempotency key's in-flight lock (held to commit;
-- another placement with the key holds it: outcome 'in_flight'), then no order with the key (one
-- committed after the caller's lookup: outcome 'placed_meanwhile', and the caller answers it as a
-- replay; one committing later fails the order's insert with 23505, handled the same way).
--
-- Locks in this order: the account's row key-share (the lock the order's foreign key takes
-- anyway), the key's row, the codes, then the account's row for the debit. The bot's account
-- commands lock the account and then may update a key (lib/accounts/manage-ip-allowlist.ts), so
-- taking the key first would let the two deadlock. The codes are taken with SKIP LOCKED, so the
-- placement never waits for them, and the only other writer of codes (a settlement) touches
-- reserved codes of its own order, never free ones: holding them across the debit cannot deadlock.
--
-- The order takes the key's next number (key_seq) under the key's row lock, so the numbers are
-- 1..n without gaps (a failed placement rolls its number back) and GET /history reads an exact
-- total from the key's row.
--
-- Stock before the wallet: `codes` free codes (0 for a top-up) are locked before the debit (FOR
-- UPDATE SKIP LOCKED, so no code is handed out twice), and when fewer are free the function fails
-- with INSUFFICIENT_STOCK: nothing is written, so the idempotency key stays free. Not charged (the
-- balance would go below zero): the order is stored cancelled with INSUFFICIENT BALANCE, with its
-- event, and nothing else (the locked codes stay free), so a replay answers the same invoice.
-- Charged: the locked codes are reserved for the order. The fulfilment job is added
-- with a key no other job can hold (`place:<order id>`) through add_job's unsafe_dedupe path: one
-- INSERT on graphile-worker's key index, whatever the queue's length. Should the key be held all the
-- same (a job left by a restored or reset database), add_job returns that job with its revision
-- bumped, and the placement fails with FULFILMENT_JOB_TAKEN: no order is ever stored without its job.
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
